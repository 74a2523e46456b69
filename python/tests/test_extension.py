"""The extension tilec._C on the CPU: bundles, dry kernels, the torch
bridge and the dispatcher's plans. ctest runs it with TILEC_CUDA_DRIVER
pointing at a missing file, so the driver tests mean the same everywhere.
"""

import importlib.util
import os
import unittest

from tilec_test_support import (CacheDirTest, needs_compiler, needs_extension,
                                needs_torch, spec, torch)

import tilec


def copy_bundle():
    return tilec.compile(spec("examples/copy.tile"), name="copy.tile")


@needs_torch
@needs_extension
@needs_compiler
class ExtensionTest(CacheDirTest):

    def setUp(self):
        super().setUp()
        from tilec import _C, _runtime
        self.C = _C
        _runtime.configure_torch()
        self.bundle = copy_bundle()

    def test_bundle_metadata(self):
        parsed = self.C.Bundle(self.bundle)
        self.assertEqual(parsed.target, "sm_90a")
        self.assertEqual(parsed.kernel_names, ["tma_copy"])
        kernel = parsed.kernel()
        self.assertTrue(kernel.dry)
        self.assertEqual(kernel.name, "tma_copy")
        self.assertEqual(kernel.args, [("X", "tensor", "bf16", (-1, -1)),
                                       ("Y", "tensor", "bf16", (-1, -1))])
        self.assertEqual(kernel.block, [128, 1, 1])

    def test_bad_bundles_and_names(self):
        with self.assertRaises(tilec.TilecError) as caught:
            self.C.Bundle(b"TILECBND\x01\x00")
        self.assertEqual(caught.exception.status, "INVALID_BUNDLE")
        with self.assertRaises(tilec.TilecError) as caught:
            self.C.Bundle(self.bundle).kernel("nope")
        self.assertEqual(caught.exception.status, "NOT_FOUND")
        self.assertIn("tma_copy", str(caught.exception))

    @unittest.skipUnless(os.environ.get("TILEC_CUDA_DRIVER", "").startswith("/nonexistent"),
                         "needs TILEC_CUDA_DRIVER=/nonexistent/... (ctest sets it)")
    def test_no_driver(self):
        with self.assertRaises(tilec.TilecError) as caught:
            self.C.driver_status()
        self.assertEqual(caught.exception.status, "DRIVER_NOT_AVAILABLE")
        with self.assertRaises(tilec.TilecError) as caught:
            self.C.Module(self.bundle)
        self.assertEqual(caught.exception.status, "DRIVER_NOT_AVAILABLE")

    def test_tensor_info(self):
        x = torch.empty(64, 128, dtype=torch.bfloat16)[:, 8:72]
        data, dtype, device, shape, strides = self.C.tensor_info(x)
        self.assertEqual((data, dtype, device, shape, strides),
                         (x.data_ptr(), "bf16", -1, (64, 64), (128, 1)))
        self.assertEqual(self.C.tensor_info(torch.nn.Parameter(x))[1], "bf16")
        self.assertEqual(self.C.tensor_info(torch.empty(2, dtype=torch.float8_e4m3fn))[1],
                         "e4m3")

        class Sub(torch.Tensor):
            pass
        for unread in (3, "x", torch.empty(2, dtype=torch.complex64),
                       torch.empty([1] * 9), x.as_subclass(Sub)):
            self.assertIsNone(self.C.tensor_info(unread), repr(type(unread)))

    def test_direct_reader_matches_attribute_reader(self):
        from tilec import _runtime
        built = importlib.util.find_spec("tilec._torch_direct") is not None
        self.assertEqual(self.C.reads_tensors_directly(),
                         built and os.environ.get("TILEC_TORCH_DIRECT", "1") != "0")
        if built:
            from tilec import _torch_direct
            self.assertEqual(_torch_direct.torch_version, torch.__version__)
        base = torch.arange(2 * 3 * 40, dtype=torch.float32).reshape(2, 3, 40)
        tensors = [base, base[1], base[:, 1:, 8:24], base.transpose(0, 2),
                   base.bfloat16()[0, :, ::2], torch.empty(0, 5, dtype=torch.float16),
                   torch.tensor(3.0), torch.empty([1] * 8, dtype=torch.int32),
                   torch.empty(16, dtype=torch.float8_e4m3fn)[4:],
                   torch.nn.Parameter(base[0]), base.expand(4, 2, 3, 40)[:, 1],
                   torch.empty(2, 3, device="meta"),
                   torch.empty(2, dtype=torch.complex64), torch.empty([1] * 9)]
        try:
            direct = [self.C.tensor_info(t) for t in tensors]
            _runtime.configure_torch(attribute_reader=True)
            self.assertFalse(self.C.reads_tensors_directly())
            attributes = [self.C.tensor_info(t) for t in tensors]
        finally:
            _runtime.configure_torch()
        for t, one, other in zip(tensors, direct, attributes):
            self.assertEqual(one, other, f"{t.dtype} {tuple(t.shape)} {t.stride()}")
        self.assertEqual(direct[2][0], base[:, 1:, 8:24].data_ptr())
        self.assertIsNone(direct[-1])

    def test_dry_kernel_checks_name_the_argument(self):
        kernel = self.C.Bundle(self.bundle).kernel()
        x = torch.empty(64, 128, dtype=torch.bfloat16)
        kernel.launch([x, x.clone()])  # checks only
        with self.assertRaisesRegex(ValueError, r"argument 'Y' \(index 1\): "
                                                r"expected dtype bf16, got f16"):
            kernel.launch([x, x.half()])
        with self.assertRaisesRegex(ValueError, "stride of dim 1 is 128 elements, TMA needs the innermost dim"):
            kernel.launch([x, x.t()])
        with self.assertRaisesRegex(ValueError, "takes 2 arguments"):
            kernel.launch([x])
        with self.assertRaisesRegex(ValueError, "expected a tensor, got a number"):
            kernel.launch([x, 1.0])

    def test_dry_kernel_takes_a_tensor_list_as_a_python_list(self):
        bundle = tilec.compile(spec("test/Target/Inputs/tensor-list.tile"),
                               name="tensor-list.tile")
        kernel = self.C.Bundle(bundle).kernel()
        self.assertEqual(kernel.args[0], ("A", "tensor_list", "bf16", (-1, -1, -1)))
        groups = [torch.empty(64, k, dtype=torch.bfloat16) for k in (64, 0, 192)]
        d = torch.empty(3, 64, 64, dtype=torch.bfloat16)
        kernel.launch([groups, d])            # checks only; the empty one too
        kernel.launch([tuple(groups[:1]), d[:1]])
        with self.assertRaisesRegex(ValueError, r"argument 'A' \(index 0\): expected "
                                                r"a list of up to 4 tensors, got torch.Tensor"):
            kernel.launch([groups[0], d])
        with self.assertRaisesRegex(ValueError, r"argument 'A' \(index 0\), tensor 1: "
                                                r"expected a torch tensor"):
            kernel.launch([[groups[0], 1.0], d])
        with self.assertRaisesRegex(ValueError, r"argument 'A' \(index 0\), tensor 2: "
                                                r"expected dtype bf16, got f16"):
            kernel.launch([groups[:2] + [groups[2].half()], d])
        with self.assertRaisesRegex(ValueError, "holds 5 tensors, the kernel takes at most 4"):
            kernel.launch([groups + groups[:2], d])

    def test_dispatcher_plans(self):
        kernel = self.C.Bundle(self.bundle).kernel()
        dispatcher = self.C.Dispatcher(2)
        x = torch.empty(64, 128, dtype=torch.bfloat16)
        y = torch.empty(128, 64, dtype=torch.bfloat16)
        self.assertFalse(dispatcher.launch(x, y), "no plan yet")
        # Y is the kernel's second argument transposed: [64, 128] row-major
        # as the kernel reads it is y.t() only if y were column-major, so the
        # checks refuse it at launch, naming the argument.
        dispatcher.add((x, y), kernel, [(0, False), (1, True)])
        self.assertEqual(len(dispatcher), 1)
        with self.assertRaisesRegex(ValueError, "argument 'Y'"):
            dispatcher.launch(x, y)
        dispatcher.add((x, x), kernel, [(0, False), (1, False)])
        self.assertTrue(dispatcher.launch(x, torch.empty_like(x)))
        self.assertFalse(dispatcher.launch(x, torch.empty(64, 64, dtype=torch.bfloat16)),
                         "another shape is another signature")
        self.assertFalse(dispatcher.launch(x, x.half()), "another dtype too")
        self.assertFalse(dispatcher.launch(x, 3), "not a tensor: the slow path")
        with self.assertRaisesRegex(ValueError, "takes 2 arguments"):
            dispatcher.add((x, x), kernel, [(0, False)])
        dispatcher.clear()
        self.assertEqual(len(dispatcher), 0)

    def test_dispatcher_retired_plan_misses_but_runs_once_when_just_recorded(self):
        # A provisional plan whose better kernel became ready while it was
        # recorded (the tiered JIT's background compile): later calls miss,
        # and the call that recorded it still launches it (it used to raise
        # "the plan just recorded was not found" on the H200, 2026-12-04).
        kernel = self.C.Bundle(self.bundle).kernel()
        dispatcher = self.C.Dispatcher(2)
        x = torch.empty(64, 128, dtype=torch.bfloat16)
        flag = self.C.RetireFlag()
        dispatcher.add((x, x), kernel, [(0, False), (1, False)], retire=flag)
        self.assertTrue(dispatcher.launch(x, x))
        flag.set()
        self.assertTrue(flag.is_set)
        self.assertFalse(dispatcher.launch(x, x), "a retired plan misses")
        self.assertTrue(dispatcher.launch_recorded(x, x))
        self.assertFalse(dispatcher.launch_recorded(x, x.half()),
                         "no plan for another signature")

    def test_dispatcher_adds_leading_dims_of_one(self):
        # (input, transposed, n): the input with n leading dims of size 1, as
        # the grouped kernels take a contiguous layout's [M, K] as [1, M, K].
        kernel = self.C.Bundle(self.bundle).kernel()
        dispatcher = self.C.Dispatcher(2)
        x = torch.empty(64, 128, dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, r"plan argument 1: input 1 with 7 leading "
                                                r"dims of 1 has more than 8 dims"):
            dispatcher.add((x, x), kernel, [(0, False), (1, False, 7)])
        dispatcher.add((x, x), kernel, [(0, False), (1, False, 0)])
        self.assertTrue(dispatcher.launch(x, torch.empty_like(x)))
        # The copy kernel's Y is 2-D: a 3-D view of it is refused at launch.
        dispatcher.add((x, x), kernel, [(0, False), (1, False, 1)])
        with self.assertRaisesRegex(ValueError, "argument 'Y'"):
            dispatcher.launch(x, x)

    def test_dispatcher_views_and_unkeyed_inputs(self):
        # (input, 'view', dtype, sizes, strides, byte offset): the input seen
        # as that view (the paged MQA cache's keys and scales); inputs past
        # `keyed` are read per call but left out of the signature.
        kernel = self.C.Bundle(self.bundle).kernel()
        dispatcher = self.C.Dispatcher(2, keyed=1)
        flat = torch.empty(64 * 128 + 128, dtype=torch.bfloat16)
        y = torch.empty(64, 128, dtype=torch.bfloat16)
        view = (0, "view", "bf16", (64, 128), (128, 1), 256)
        dispatcher.add((flat, y), kernel, [view, (1, False)])
        args = dispatcher.first_args(flat, y)
        self.assertEqual(args[0], (flat.data_ptr() + 256, "bf16", (64, 128), (128, 1)))
        self.assertEqual(args[1], (y.data_ptr(), "bf16", (64, 128), (128, 1)))
        self.assertTrue(dispatcher.launch(flat, y))
        # Y is not keyed: another one finds the plan, and the runtime checks it.
        with self.assertRaisesRegex(ValueError, "argument 'Y'"):
            dispatcher.launch(flat, y.half())
        self.assertIsNone(dispatcher.first_args(flat[1:], y), "another signature")
        bad = [((0, "vue", "bf16", (64, 128), (128, 1), 0), "a 6-tuple is \\(input, 'view', dtype, sizes, strides, byte offset\\)"),
               ((0, "view", "bf17", (64, 128), (128, 1), 0), "unknown tilec dtype 'bf17'"),
               ((0, "view", "bf16", (64, 128), (1,), 0), "a view has 1 to 8 dims, as many strides as sizes"),
               ((0, "view", "bf16", (64, 128), (128, 1), -2), "a view's byte offset must not be negative, got -2")]
        for entry, message in bad:
            with self.subTest(message=message):
                with self.assertRaisesRegex(ValueError, "plan argument 0: " + message):
                    dispatcher.add((flat, y), kernel, [entry, (1, False)])
        with self.assertRaisesRegex(ValueError, "covers at most its 2 tensors, got 3"):
            self.C.Dispatcher(2, keyed=3)

    def test_dispatcher_plans_of_two_kernels_and_a_workspace(self):
        # The copy kernel twice: X -> workspace, then workspace -> Y (a dry
        # run checks each launch's arguments against its kernel).
        kernel = self.C.Bundle(self.bundle).kernel()
        dispatcher = self.C.Dispatcher(2)
        x = torch.empty(64, 128, dtype=torch.bfloat16)
        y = torch.empty_like(x)
        workspace = torch.empty_like(x)
        dispatcher.add((x, y), kernel, [(0, False), "workspace"],
                       then=[(kernel, ["workspace", (1, False)])],
                       workspace=workspace)
        self.assertTrue(dispatcher.launch(x, y))
        # The plan's new workspace for this stream (a dry run's: none)
        # replaces the old one; one of the wrong dtype fails the checks.
        dispatcher.add((x, y), kernel, [(0, False), "workspace"],
                       then=[(kernel, ["workspace", (1, False)])],
                       workspace=x.half())
        self.assertEqual(len(dispatcher), 1)
        with self.assertRaisesRegex(ValueError, r"argument 'Y' \(index 1\): "
                                                r"expected dtype bf16, got f16"):
            dispatcher.launch(x, y)
        with self.assertRaisesRegex(ValueError, "names the workspace, but none is given"):
            dispatcher.add((x, y), kernel, [(0, False), "workspace"])
        with self.assertRaisesRegex(ValueError, "the only named source is 'workspace'"):
            dispatcher.add((x, y), kernel, [(0, False), "scratch"])
        with self.assertRaisesRegex(ValueError, "the workspace must be a torch tensor"):
            dispatcher.add((x, y), kernel, [(0, False), "workspace"], workspace=3)


if __name__ == "__main__":
    unittest.main()
