"""The nn layers, nn.init and module walks a PyTorch model is ported with, checked against
PyTorch itself: the same seed gives the same initial weights and the same nn.init draws (one
generator, PyTorch's algorithms), the same weights give the same outputs, and state-dict
names, named_modules and apply's order are PyTorch's. Exit 77 (skipped) without torch."""
import json
import math
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import TempDir, run, write  # noqa: E402

try:
    import torch
    from torch import nn
except ImportError as e:
    print(f"SKIP: torch not installed ({e}); scripts/setup installs it")
    sys.exit(77)

PRELUDE = """
local function enc(v)
  if type(v) == "table" then
    local p = {}
    for i, x in ipairs(v) do p[i] = enc(x) end
    return "[" .. table.concat(p, ",") .. "]"
  end
  if type(v) == "string" then return string.format("%q", v) end
  return string.format("%.17g", v)
end
local function out(name, v)
  if type(v) == "userdata" then v = v:double():tolist() end
  print("OUT " .. name .. " " .. enc(v))
end
"""
EPILOGUE = """
return { datasets = { train = require("runner.data").tensors{ x = torch.zeros(2, 1) } }, model = nn.Linear(1, 1) }
"""

# name, Lua constructor, PyTorch constructor, input shape: built after manual_seed(5) in both.
LAYERS = [
    ("conv1d", "nn.Conv1d(4, 6, 3, {stride = 2, padding = 1, groups = 2})",
     lambda: nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9)),
    ("conv1d_nobias", "nn.Conv1d(3, 5, 2, {dilation = 2, bias = false})", lambda: nn.Conv1d(3, 5, 2, dilation=2, bias=False), (2, 3, 7)),
    ("groupnorm", "nn.GroupNorm(2, 4, {eps = 1e-3})", lambda: nn.GroupNorm(2, 4, eps=1e-3), (3, 4, 5)),
    ("rmsnorm", "nn.RMSNorm(8)", lambda: nn.RMSNorm(8), (3, 8)),
    ("rmsnorm_eps", "nn.RMSNorm({8}, {eps = 1e-6})", lambda: nn.RMSNorm([8], eps=1e-6), (2, 5, 8)),
    ("avgpool", "nn.AvgPool2d(3, {stride = 2, padding = 1, count_include_pad = false})",
     lambda: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 3, 7, 6)),
    ("avgpool_ceil", "nn.AvgPool2d({2, 3}, {ceil_mode = true})", lambda: nn.AvgPool2d((2, 3), ceil_mode=True), (1, 2, 5, 7)),
    ("adaptive", "nn.AdaptiveAvgPool2d({3, 2})", lambda: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    ("leaky", "nn.LeakyReLU(0.2)", lambda: nn.LeakyReLU(0.2), (4, 5)),
    ("leaky_default", "nn.LeakyReLU()", lambda: nn.LeakyReLU(), (4, 5)),
    ("elu", "nn.ELU{alpha = 0.5}", lambda: nn.ELU(alpha=0.5), (4, 5)),
    ("softplus", "nn.Softplus(2, 1)", lambda: nn.Softplus(2, 1), (4, 5)),
    ("hardtanh", "nn.Hardtanh(-0.5, 0.5)", lambda: nn.Hardtanh(-0.5, 0.5), (4, 5)),
    ("softmax", "nn.Softmax(1)", lambda: nn.Softmax(1), (3, 4, 5)),
    ("logsoftmax", "nn.LogSoftmax{dim = -1}", lambda: nn.LogSoftmax(dim=-1), (3, 4, 5)),
    ("mish", "nn.Mish()", lambda: nn.Mish(), (4, 5)),
    ("hardswish", "nn.Hardswish()", lambda: nn.Hardswish(), (4, 5)),
    ("hardsigmoid", "nn.Hardsigmoid()", lambda: nn.Hardsigmoid(), (4, 5)),
    ("softsign", "nn.Softsign()", lambda: nn.Softsign(), (4, 5)),
    ("identity", "nn.Identity()", lambda: nn.Identity(), (4, 5)),
]

# name, Lua call on t, PyTorch call on t, shape.
INITS = [
    ("uniform", "nn.init.uniform_(t, -0.1, 0.3)", lambda t: nn.init.uniform_(t, -0.1, 0.3), (16, 8)),
    ("normal", "nn.init.normal_(t, {mean = 1, std = 0.02})", lambda t: nn.init.normal_(t, mean=1, std=0.02), (16, 8)),
    ("constant", "nn.init.constant_(t, 0.5)", lambda t: nn.init.constant_(t, 0.5), (3, 4)),
    ("zeros", "nn.init.zeros_(t)", lambda t: nn.init.zeros_(t), (3, 4)),
    ("ones", "nn.init.ones_(t)", lambda t: nn.init.ones_(t), (3, 4)),
    ("eye", "nn.init.eye_(t)", lambda t: nn.init.eye_(t), (3, 5)),
    ("xavier_uniform", "nn.init.xavier_uniform_(t, 2)", lambda t: nn.init.xavier_uniform_(t, 2), (16, 8, 3)),
    ("xavier_normal", "nn.init.xavier_normal_(t)", lambda t: nn.init.xavier_normal_(t), (16, 8)),
    ("kaiming_uniform", "nn.init.kaiming_uniform_(t, {a = math.sqrt(5)})",
     lambda t: nn.init.kaiming_uniform_(t, a=math.sqrt(5)), (12, 6, 3, 3)),
    ("kaiming_normal", "nn.init.kaiming_normal_(t, 0, 'fan_out', 'relu')",
     lambda t: nn.init.kaiming_normal_(t, 0, "fan_out", "relu"), (12, 6)),
    ("kaiming_tanh", "nn.init.kaiming_uniform_(t, {nonlinearity = 'tanh'})",
     lambda t: nn.init.kaiming_uniform_(t, nonlinearity="tanh"), (12, 6)),
    ("trunc_normal", "nn.init.trunc_normal_(t, {std = 0.02})", lambda t: nn.init.trunc_normal_(t, std=0.02), (32, 8)),
    ("trunc_normal_ab", "nn.init.trunc_normal_(t, 0, 1, -1, 0.5)", lambda t: nn.init.trunc_normal_(t, 0, 1, -1, 0.5), (32, 8)),
    ("orthogonal_wide", "nn.init.orthogonal_(t)", lambda t: nn.init.orthogonal_(t), (6, 10)),
    ("orthogonal_tall", "nn.init.orthogonal_(t, 2)", lambda t: nn.init.orthogonal_(t, 2), (10, 3, 2)),
    ("method_normal", "t:normal_(0.5, 2)", lambda t: t.normal_(0.5, 2), (16, 8)),
    ("method_uniform", "t:uniform_(-2, 1)", lambda t: t.uniform_(-2, 1), (16, 8)),
]


def lua_shape(shape):
    return ", ".join(str(s) for s in shape)


def outputs(text):
    got = {}
    for line in text.splitlines():
        if line.startswith("OUT ") or " OUT " in line:
            _, name, value = line[line.index("OUT "):].split(" ", 2)
            got[name] = json.loads(value)
    return got


class NnPort(unittest.TestCase):
    def run_lua(self, body):
        with TempDir() as d:
            write(os.path.join(d, "port.lua"), PRELUDE + body + EPILOGUE)
            code, out, err = run("check", "port.lua", cwd=d)
            self.assertEqual(code, 0, err[-3000:])
            return outputs(out + err)

    def test_layers_initialise_and_compute_as_pytorch(self):
        body = ""
        for name, lua, _, shape in LAYERS:
            body += f"""
torch.manual_seed(5)
do
  local m = {lua}
  for k, p in m:named_parameters() do out("{name}.p." .. k, p) end
  local x = torch.randn({lua_shape(shape)})
  out("{name}.x", x)
  x:requires_grad_()
  local y = m(x)
  out("{name}.y", y)
  y:sum():backward()
  out("{name}.g.x", x:grad())
  for k, p in m:named_parameters() do out("{name}.g." .. k, p:grad()) end
end
"""
        got = self.run_lua(body)
        for name, _, make, shape in LAYERS:
            with self.subTest(layer=name):
                torch.manual_seed(5)
                m = make()
                # the same seed, the same initial weights (PyTorch's reset_parameters draws)
                for k, p in m.named_parameters():
                    np.testing.assert_array_equal(np.array(got[f"{name}.p.{k}"], dtype=np.float32), p.detach().numpy(), err_msg=k)
                self.assertEqual({k for k in got if k.startswith(f"{name}.p.")},
                                 {f"{name}.p.{k}" for k, _ in m.named_parameters()})
                x = torch.tensor(got[f"{name}.x"], dtype=torch.float32, requires_grad=True)
                y = m(x)
                np.testing.assert_allclose(np.array(got[f"{name}.y"]), y.detach().numpy(), rtol=1e-5, atol=1e-6)
                y.sum().backward()
                np.testing.assert_allclose(np.array(got[f"{name}.g.x"]), x.grad.numpy(), rtol=1e-4, atol=1e-5)
                for k, p in m.named_parameters():
                    np.testing.assert_allclose(np.array(got[f"{name}.g.{k}"]), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)

    def test_init_functions_draw_pytorchs_values(self):
        body = ""
        for name, lua, _, shape in INITS:
            body += f"""
torch.manual_seed(11)
do
  local t = torch.zeros({lua_shape(shape)})
  local r = {lua}
  assert(r == t, "{name} returns its tensor")
  out("{name}", t)
end
"""
        body += """
out("gain", {nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("relu"),
             nn.init.calculate_gain("conv2d"), nn.init.calculate_gain("selu"), nn.init.calculate_gain("leaky_relu")})
-- a parameter is initialised in place without recording gradients, as in PyTorch
local lin = nn.Linear(4, 3)
nn.init.normal_(lin.weight, 0, 0.02)
out("param_requires_grad", {lin.weight:requires_grad() and 1 or 0})
"""
        got = self.run_lua(body)
        for name, _, call, shape in INITS:
            with self.subTest(init=name):
                torch.manual_seed(11)
                t = torch.zeros(shape)
                with torch.no_grad():
                    call(t)
                np.testing.assert_allclose(np.array(got[name]), t.numpy(), rtol=1e-6, atol=1e-7)
        expected = [nn.init.calculate_gain("leaky_relu", 0.2), nn.init.calculate_gain("tanh"), nn.init.calculate_gain("relu"),
                    nn.init.calculate_gain("conv2d"), nn.init.calculate_gain("selu"), nn.init.calculate_gain("leaky_relu")]
        np.testing.assert_allclose(got["gain"], expected, rtol=1e-12)
        self.assertEqual(got["param_requires_grad"], [1])

    def test_module_walks_and_state_dict_names_are_pytorchs(self):
        body = """
local inner = nn.Sequential(nn.Linear(3, 4), nn.GELU())
local model = nn.Sequential(nn.Conv1d(2, 3, 1), nn.ModuleDict{ head = nn.Linear(4, 2), norm = nn.GroupNorm(1, 3) }, inner,
                            nn.ModuleList{ nn.RMSNorm(4), inner })
local names, types, kids, applied = {}, {}, {}, {}
for name, m in model:named_modules() do names[#names + 1] = name; types[#types + 1] = m:type() end
for name, m in model:named_children() do kids[#kids + 1] = name end
model:apply(function(m) applied[#applied + 1] = m:type() end)
out("names", names)
out("types", types)
out("children", kids)
out("applied", applied)
out("n_modules", {#model:modules(), #model:children()})
local keys = {}
for k, _ in pairs(model:state_dict()) do keys[#keys + 1] = k end
table.sort(keys)
out("keys", keys)
model:requires_grad_(false)
local frozen = 0
for _, p in ipairs(model:parameters()) do if not p:requires_grad() then frozen = frozen + 1 end end
model[1].head:requires_grad_()
local x = torch.randn(5, 4)
model[1].head(x):sum():backward()
local with_grad = model[1].head.weight:grad() ~= nil
model:zero_grad()
out("grads", {frozen, #model:parameters(), with_grad and 1 or 0, model[1].head.weight:grad() == nil and 1 or 0})
"""
        got = self.run_lua(body)
        inner = nn.Sequential(nn.Linear(3, 4), nn.GELU())
        model = nn.Sequential(nn.Conv1d(2, 3, 1), nn.ModuleDict({"head": nn.Linear(4, 2), "norm": nn.GroupNorm(1, 3)}), inner,
                              nn.ModuleList([nn.RMSNorm(4), inner]))
        self.assertEqual(got["names"], [n for n, _ in model.named_modules()])
        self.assertEqual(got["types"], [type(m).__name__ for _, m in model.named_modules()])
        self.assertEqual(got["children"], [n for n, _ in model.named_children()])
        applied = []
        model.apply(lambda m: applied.append(type(m).__name__))
        self.assertEqual(got["applied"], applied)
        self.assertEqual(got["n_modules"], [len(list(model.modules())), len(list(model.children()))])
        self.assertEqual(got["keys"], sorted(model.state_dict().keys()))
        n = len(list(model.parameters()))
        self.assertEqual(got["grads"], [n, n, 1, 1])

    def test_bad_arguments_are_one_line_errors(self):
        for lua, message in [
            ("nn.Softmax()", "nn.Softmax: give dim"),
            ("nn.Conv1d(4, 6, 3, {groups = 4, strides = 2})", "unknown option 'strides'"),
            ("nn.Conv1d(4, 6, 3, {groups = 4})", "divisible by groups"),
            ("nn.GroupNorm(3, 4)", "num_channels must be divisible by num_groups"),
            ("nn.init.kaiming_uniform_(torch.zeros(3))", "2 or more dimensions"),
            ("nn.init.kaiming_normal_(torch.zeros(3, 3), {mode = 'fan'})", "mode must be \"fan_in\" or \"fan_out\""),
            ("nn.LeakyReLU('x')", "negative_slope must be a number"),
            ("nn.ModuleDict{ a = 3 }", "'a' is not a module"),
        ]:
            with self.subTest(lua=lua), TempDir() as d:
                write(os.path.join(d, "bad.lua"), f"local m = {lua}\n" + EPILOGUE)
                code, out, err = run("check", "bad.lua", cwd=d)
                self.assertEqual(code, 2, err)
                self.assertIn(message, err)
                self.assertIn("bad.lua:1", err)


if __name__ == "__main__":
    unittest.main()
