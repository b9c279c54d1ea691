"""What both golden-corpus scripts (run_golden.py, convert_golden.py) know
of the corpus: which host tensor programs the runtime covers."""

# Host tensor programs whose dialects and kernels exist.
TENSOR_PROGRAMS_DONE = {
    "tensor_const_dense", "tensor_ts_shape", "tensor_ts_fixed_partial",
    "tensor_unknown_rank0_shape", "tensor_dht_create_fill",
    "tensor_dht_set_constant_values", "tensor_dht_set_values_operands",
    "tensor_dht_print_format", "tensor_dht_equal", "tensor_dht_allclose",
    "tensor_dht_buffer", "tensor_dht_shape", "tensor_dht_dataflow",
    "tensor_dht_errors", "tensor_alloc_fail", "tensor_unknown_ui16",
    "tensor_unknown_dht_sync", "tensor_terr_shape_attr", "tensor_sht",
    "tensor_coo", "tensor_coo_equal", "tensor_attr_probe", "tensor_btf_read",
}


def is_pending_tensor_program(name):
    """A host tensor program of the corpus the runtime does not cover yet."""
    return name.startswith("tensor_") and name not in TENSOR_PROGRAMS_DONE
