"""Read and write the files ranking evaluations come in: TREC runs and qrels (`trec`), BEIR's
qrels (`beir`)."""

from polars_rankk.io.beir import read_beir_qrels
from polars_rankk.io.trec import read_trec_qrels, read_trec_run, write_trec_run
from polars_rankk.io.trec_bytes import TrecBytesWarning

__all__ = [
    "TrecBytesWarning",
    "read_beir_qrels",
    "read_trec_qrels",
    "read_trec_run",
    "write_trec_run",
]
