"""sumjudge: reproduce "Human-like Summarization Evaluation with ChatGPT" (Gao et al. 2023).

The package is organised by pipeline stage; every function is usable without Snakemake:

- ``sumjudge.data``    fetch upstream files, turn each dataset into one tidy table
- ``sumjudge.judge``   prompt an LLM judge with the paper's protocols
- ``sumjudge.metrics`` baseline metrics (ROUGE, BERTScore, ...)
- ``sumjudge.stats``   correlations and accuracies at the paper's levels
- ``sumjudge.tables``  Tables 1-9 as CSV and LaTeX beside the published values
"""

__version__ = "0.1.0"
