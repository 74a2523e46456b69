"""Tests of runtime/python/tilec_runtime.py without a CUDA driver.

CTest runs this with TILEC_RUNTIME_LIB set to the built library and
TILEC_CUDA_DRIVER pointing at a missing file. Exits non-zero on failure.
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, sys.argv.pop(1))  # runtime/python
import tilec_runtime as tr  # noqa: E402


class NoDriver(unittest.TestCase):

    def test_driver_status_raises_clear_error(self):
        with self.assertRaises(tr.TilecError) as caught:
            tr.driver_status()
        self.assertEqual(caught.exception.status, "DRIVER_NOT_AVAILABLE")
        self.assertTrue(str(caught.exception).startswith(
            "CUDA driver not available: cannot load /nonexistent/"))

    def test_bad_bundle_is_reported_before_the_driver(self):
        with tempfile.NamedTemporaryFile(suffix=".tilec") as file:
            file.write(b"TILECBND\x01\x00")
            file.flush()
            with self.assertRaises(tr.TilecError) as caught:
                tr.Module(file.name)
        self.assertEqual(caught.exception.status, "INVALID_BUNDLE")
        self.assertIn("bundle truncated", str(caught.exception))

    def test_missing_file(self):
        with self.assertRaises(tr.TilecError) as caught:
            tr.Module("/nonexistent/kernel.tilec")
        self.assertEqual(str(caught.exception), "cannot open "
                         "'/nonexistent/kernel.tilec': No such file or "
                         "directory")

    def test_directory_is_an_error_not_an_abort(self):
        with tempfile.TemporaryDirectory() as directory:
            with self.assertRaises(tr.TilecError) as caught:
                tr.Module(directory)
        self.assertEqual(caught.exception.status, "INVALID_BUNDLE")
        self.assertEqual(str(caught.exception),
                         f"cannot read '{directory}': Is a directory")

    def test_synchronize_needs_the_driver(self):
        with self.assertRaises(tr.TilecError) as caught:
            tr.synchronize()
        self.assertEqual(caught.exception.status, "DRIVER_NOT_AVAILABLE")


class Conversion(unittest.TestCase):

    def test_tensor_ref(self):
        info = tr.ArgInfo("A", "tensor", "bf16", (-1, 64))
        arg = tr._to_c_arg(tr.TensorRef(0x1000, "bf16", (8, 64), (64, 1)),
                           info, 0, [])
        self.assertEqual((arg.kind, arg.dtype, arg.rank, arg.data),
                         (tr.ARG_TENSOR, 1, 2, 0x1000))
        self.assertEqual((list(arg.shape[:2]), list(arg.strides[:2])),
                         ([8, 64], [64, 1]))

    def test_scalars_take_the_kernel_dtype(self):
        alpha = tr._to_c_arg(2, tr.ArgInfo("alpha", "scalar", "f32", ()), 0,
                             [])
        self.assertEqual((alpha.kind, alpha.dtype, alpha.float_value),
                         (tr.ARG_SCALAR, 2, 2.0))
        big = tr._to_c_arg(2**64 - 1, tr.ArgInfo("n", "scalar", "u64", ()), 1,
                           [])
        self.assertEqual(big.int_value, -1)
        with self.assertRaises(TypeError):
            tr._to_c_arg("x", tr.ArgInfo("n", "scalar", "i32", ()), 1, [])

    def test_unknown_dtype_name(self):
        with self.assertRaises(TypeError):
            tr._to_c_arg(tr.TensorRef(0, "f8", (1,), (1,)),
                         tr.ArgInfo("A", "tensor", "f32", (-1,)), 0, [])

    def test_tensor_list_points_at_its_tensors(self):
        info = tr.ArgInfo("A", "tensor_list", "e4m3", (-1, 256, -1), 4)
        keep = []
        arg = tr._to_c_arg([tr.TensorRef(0x1000, "e4m3", (256, 128), (128, 1)),
                            tr.TensorRef(0x9000, "e4m3", (256, 256), (256, 1))],
                           info, 0, keep)
        self.assertEqual((arg.kind, arg.rank), (tr.ARG_TENSOR_LIST, 2))
        self.assertEqual(len(keep), 1)  # the tensors' array lives in keep
        self.assertEqual(arg.data, tr.ctypes.addressof(keep[0]))
        self.assertEqual((keep[0][1].data, keep[0][1].shape[1]), (0x9000, 256))
        with self.assertRaisesRegex(TypeError, "expected a list of tensors"):
            tr._to_c_arg(tr.TensorRef(0x1000, "e4m3", (256, 128), (128, 1)),
                         info, 0, [])


if __name__ == "__main__":
    unittest.main()
