"""The metric names users type (ir_measures, trec_eval and ranx spellings), and the names
written back in another tool's spelling."""
