"""Upstream files the pipeline needs, pinned by commit and sha256.

Generated once from ``shared/data/*/PROVENANCE.md``; edit by hand when a source moves.
Each entry's local path is ``<dataset>/<owner>+<repo>/<path>``, the layout of a mirror
directory (config key ``mirror``) and of ``results/raw/``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    dataset: str
    repo: str  # owner/name on GitHub
    commit: str
    path: str  # path inside the repository
    sha256: str

    @property
    def local_path(self) -> str:
        owner, name = self.repo.split("/")
        return f"{self.dataset}/{owner}+{name}/{self.path}"

    @property
    def url(self) -> str:
        return f"https://raw.githubusercontent.com/{self.repo}/{self.commit}/{self.path}"


SOURCES: tuple[Source, ...] = (
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M10_outputs_annotations.jsonl",
           "97fcbe959263a1194c12ec68de0779d121aa0d8b626355406dad332d97cdb647"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M11_outputs_annotations.jsonl",
           "316d600477d1ddcc734a2e0495414befa7f9561fe272e16a007bf1adadd9dd85"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M12_outputs_annotations.jsonl",
           "41e1fabd1326f4e6dbfaee5df74abbd3f93abb4aa70d80b06201ba64518a61a8"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M13_outputs_annotations.jsonl",
           "6e54a047c75810271ce2ffe67351d0739f71976ef634583e5ab3564594d988de"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M14_outputs_annotations.jsonl",
           "f340a99d998602c1f7a044c0cc8d7115a3ed6ffe940c1c5174eb35da6a051b40"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M15_outputs_annotations.jsonl",
           "853c9d61f904bfdfa43fea7c22a2b7b54460484a47cff8fcc127c6434d1ed6d0"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M17_outputs_annotations.jsonl",
           "9186137414e04595b3974a191c0cc590508087bc9ccd3f9edca891539308e75d"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M20_outputs_annotations.jsonl",
           "b8a7d20201445c37b0351b587d5918fbe5501910f088bb752d14adcf86e272a6"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M22_outputs_annotations.jsonl",
           "055c5ca4e051b95697a85332a2d43bd4cc49a7b20db44297fded88edec4db3b3"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M23_outputs_annotations.jsonl",
           "a6c765629284a22731ceda3bf0bf2316dc60371a0d9def141ba7f4b688dbdd60"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M8_outputs_annotations.jsonl",
           "42fc0beefc741046a45d6b0b275f53d4a8dacf6d8fad61018dd2749cf6cae55f"),
    Source("summeval", "DAMO-NLP-SG/LLM_summeval", "bd7dde15817a88940c17574973ff03e750356daa",
           "model_output_annotations/M9_outputs_annotations.jsonl",
           "d535fd61bc458e738d4bbeeb9b99306e6c5305f8895bd7d9e7cc919d4092b1ff"),
    # the three experts' scores for all 16 systems (the 4 extractive ones included)
    Source("summeval", "nitaytech/AltTest", "18428b1f4f34ac61c4978bc180263b90111e7337",
           "data/summeval/human_annotations.json",
           "2e641f502678ea8c7344ed137bca58a12525bfcf69bc068e580b236ce2b17519"),
    Source("summeval", "neulab/BARTScore", "248f511cb34ae3753fc81f7d7a945de5bfe33458",
           "SUM/SummEval/data.pkl",
           "008f1639a3352f0248cac88b74ff431c27287a027a888902ef425a26005f0acf"),
    Source("newsroom", "dmg-illc/JUDGE-BENCH", "5a0bf500325029efb5dc8adff2c1e991996f0e78",
           "data/newsroom/newsroom.json",
           "353a7e4646bdbc2f3429e71461d11fe6ce351ee8c2d3e8b4a7ca4aace015a6b0"),
    Source("newsroom", "neulab/BARTScore", "248f511cb34ae3753fc81f7d7a945de5bfe33458",
           "SUM/Newsroom/data.pkl",
           "277795f19d17fef0077061708d468e020c90071854508e774f4addae8a4a0ed5"),
    Source("tldr", "redwoodresearch/mlab", "b117473d3321887cfab9325782542016c9a996be",
           "comparisons/batch13.json",
           "e4f4de3ad8763b801c4b45ff277e1ead75e9c4105f1b0837793c4b51477ec122"),
    Source("tldr", "redwoodresearch/mlab", "b117473d3321887cfab9325782542016c9a996be",
           "comparisons/batch18.json",
           "5008e223e287b4c38e434e270cf77301993adba70e1f87362f35fb928f83863a"),
    Source("realsumm", "neulab/BARTScore", "248f511cb34ae3753fc81f7d7a945de5bfe33458",
           "SUM/REALSumm/data.pkl",
           "1f9c97d27e8fe3ade81f76ea33dc6d3b5b333a602b1c568130306039bd701942"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/banditsumm_out.csv",
           "497d4ae8c33c5b556ee2c76d22a2f51ae8423600dbb230adeef2a2a03149415a"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/bottom_up_out_Batch_crowd_3.csv",
           "40de01a56e32ed4580b15262db3f3510b273fce79b999328c4cafada47cd20ac"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/fast_abs_rl_out_rerank_Batch_crowd_3.csv",
           "81b2386d80c3e5b8828124f3ed8e209586f11860da5761025dabd21fb5132d79"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/neusumm_out_Batch_crowd_3.csv",
           "b7b80d4078f5775534668a9c203e87acd5ca7213119845746e62e31873038d2e"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/presumm_out_abs_Batch_crowd_3.csv",
           "888526a9fe93aaf492faa34b58432efb1e52df584a61605fee3f5d32aa69fbd0"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/presumm_out_ext_abs_Batch_crowd_3.csv",
           "b523774b8224905c63812e7a35275edbf3c1163aecafdafc9aafbbbf70539de8"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/presumm_out_trans_abs_Batch_crowd_3.csv",
           "6e92ad09482d8fdd6fc8bfe79f9d6b64f39d6193b1408c820c32a7d8f670bf7e"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/ptr_generator_out_pointer_gen_cov_Batch_crowd_3.csv",
           "bdcedc51e4ff0be255023fb2c8906307c2eb71da14fd75893b979a89aff8f681"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/semsim_out_Batch_crowd_3.csv",
           "fa349f2f5085d4f9249810ab12a62b6c7dc7b2d52ce20b9404b47183c8236eb4"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/t5_out_11B_Batch_crowd_3.csv",
           "b08abe3ea378bc6cd2dab4c22a9b287c63ce33b7e07ea31c8a8309640dcfd1a8"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/t5_out_base_Batch_crowd_3.csv",
           "cb690d8010a658ffdbaea40279baee8bace2a23a57b413bf08901992aa08e142"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/t5_out_large_Batch_crowd_3.csv",
           "a26b45f44a020c5a1c2cc2c4f9a797323a455de9a28d471724465d64a39866f9"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/two_stage_rl_out_Batch_crowd_3.csv",
           "25b85b104ceaf4a2e40ee21416725e15e671e4c2f8d4328ed74beabe8ee0456a"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/unilm_out_v1_Batch_crowd_3.csv",
           "f119b5340fb3d6b00cdc87b0857e21308716d7c88c20a8fc8ece64a6e6dbc7be"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_abs_systems/unilm_out_v2_Batch_crowd_3.csv",
           "e9d6945a51a12cab4f8443c32eab1f6b868540b23335cf4b337bd20051b8b5fc"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/bart_out.csv",
           "97b87555738529f8ac96e1ca951878620565b432da69696596cf5341395f5f87"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/heter_graph_out.csv",
           "3e5cb213f144ed854039349146e23741e56947fec2626a60e0417243535cc31e"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/matchsumm_out.csv",
           "70391b6d2ef50a467789ae8e753425df78b0ab4fdbab16f30414cc0a06414d18"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/pnbert_out_bert_lstm_pn.csv",
           "abc990d41c6928833495c31fe3f165001d081e115e3433d90860660611b5220c"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/pnbert_out_bert_lstm_pn_rl.csv",
           "bb70ccd3bd38e5491b9495b136587824ae3f180c0802ea2315d51c1a87d8f354"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/pnbert_out_bert_tf_pn.csv",
           "9c5fadf0c4157554ba5b8f40425d2dd03b2c0439d0494adb7be7b004cd8c8359"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/pnbert_out_bert_tf_sl.csv",
           "f170dd6e054094c55debefb3aaea12e01ab830cb99d1b60392a5fb9ee97dde79"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/pnbert_out_lstm_pn_rl.csv",
           "3324b27b8627e05603c2f30cad6165755f0b50583cfbea6eb847052f72774ff6"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCU_rating_results_ext_systems/refresh_out.csv",
           "57c266f09e2f14afe9944f98d15493a8422f15eaab0b585baebd84e1b26a28bf"),
    Source("realsumm", "neulab/REALSumm", "a5900e3e36c66ab064823831f7496c2d449a5545",
           "human_annotations/SCUs_and_annotations/SCUs_list.csv",
           "14687dd57562cbd4e72dc26ff29f90dee71023fa6616bf53dc80d373fa10e4c0"),
    Source("qags", "W4ngatang/qags", "47798e9b63344e2d3fb4df2def6edc18e9402d30",
           "data/mturk_cnndm.jsonl",
           "5a6e20201f2c5d5d2489865137987c5d68d04c5b4e84662f99bb03862bb3a575"),
    Source("qags", "W4ngatang/qags", "47798e9b63344e2d3fb4df2def6edc18e9402d30",
           "data/mturk_xsum.jsonl",
           "1fb9af32ba64b0df54b26e12456b0b0324a519a85348c1f7b268899ad6269a15"),
    # beyond the paper (issue 26): DialSummEval's campus and AMT annotations, FacEval's cased SAMSum test split
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_campus/human_judgment.jsonl",
           "727e1983f625a3380a8dc964035e5119d2c24220fbc1628e66801939494c50c5"),
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_AMT/raw/Batch_4602982_batch_results.csv",
           "5b76ef189501adf8ea61e44683b916747636ae006bf0651bef87632acd5cea7f"),
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_AMT/raw/Batch_4602984_batch_results.csv",
           "0727ec746293bdd65186919a001bc86ea7497d31f62f5dad75791cc0e1cb5141"),
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_AMT/raw/Batch_4602985_batch_results.csv",
           "adeb8f88e4e018a6082703af72724864b10d1bc3d52b64bb0c3699cc3b1e5a09"),
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_AMT/raw/Batch_4602986_batch_results.csv",
           "d45b01c15fd57ecd8573b2441a39ec7a59f3b923f8122cdb59d0d5f9b26f35a0"),
    Source("dialsummeval", "kite99520/DialSummEval", "667118e10ae69ef8cbc5cbddec0ce91b5c9c6187",
           "annotation_AMT/raw/Batch_4602987_batch_results.csv",
           "9395870cc099267e9813b61177ae48538029e3a4f1a8b414ca412a56fd7b4790"),
    Source("dialsummeval", "BinWang28/FacEval", "548f7591836b5cb096462e07051927eaa6107eba",
           "data/samsum.test.jsonl",
           "5a67035ef9ab574e13b96b98d538505abb3f890e58226459fbc313f47fd11fd3"),
    # SQuALITY's human evaluation and the v1.3 plain-text test split (stories, questions, references)
    Source("squality", "nyu-mll/SQuALITY", "dc08d4f574639d773bc64ef3ab3527043108fb4e",
           "data/human-eval/all-responses.jsonl",
           "fdefc51dae186097b35d09af1e9e355c19e422d4291a9899d2e7adcc87024f02"),
    Source("squality", "nyu-mll/SQuALITY", "dc08d4f574639d773bc64ef3ab3527043108fb4e",
           "data/v1-3/txt/test.jsonl",
           "5a485f30edebd16367427997ae82fac47bcd9ada9e7755c70a7d6569c0668c9c"),
    # --- issue 26, beyond the paper (i26b): HELM news pairs and CNN/DM comparisons ---
    Source("helm_news", "Tiiiger/benchmark_llm_summarization", "4e87890ed070c7db3dd5c1125adb5bde0ccd2eb1",
           "pairwise_evaluation_results.json",
           "d823b8b385a428a0bad175285868c5fda3b396ac00d63a7886ee5a147bc49307"),
    # OpenAI's summarize-from-feedback dataset/comparisons/cnndm0.json, byte copy in redwoodresearch/mlab
    Source("cnndm_comparisons", "redwoodresearch/mlab", "b117473d3321887cfab9325782542016c9a996be",
           "comparisons/cnndm0.json",
           "be936926b85b8d42d708529bb4fae2470918cb0bd7d8d3eb3c7a4b4cb986225b"),
)

DATASET_FILES: dict[str, list[Source]] = {}
for _s in SOURCES:
    DATASET_FILES.setdefault(_s.dataset, []).append(_s)

BY_LOCAL_PATH: dict[str, Source] = {s.local_path: s for s in SOURCES}

