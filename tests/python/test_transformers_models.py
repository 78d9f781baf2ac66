"""Small random-init `transformers` models trained by nova.jit on CPU next to
eager (issue: real models). What they need after capture: constant_pad_nd
(GPT-2's and Llama's attention masks), cos/sin (rotary embeddings),
slice_scatter (an in-place copy into a slice, functionalized at capture), the
fused qkv of GPT-2's Conv1D, BERT's separate projections and GELU.

Also OPT and RoBERTa (positions from a cumsum over a mask), GPT-NeoX
(fused qkv, partial rotary), Qwen2 (qkv biases, grouped-query attention),
DistilBERT and Phi (parallel attention and MLP); and three vision families:
ViT (patch embedding as a strided convolution), ResNet (BatchNorm, max
pooling, adaptive average pooling) and ConvNeXt (depthwise convolutions,
channels-last LayerNorm).

Compared after 5 steps: every loss (relative 1e-4) and every parameter
(relative norm error of the update 1e-3). Llama has no biases, so AdamW
runs there; the models with biases use SGD with momentum, whose update of
the key bias (true gradient 0) stays at rounding size instead of AdamW's
+-lr.
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import nova
from training_checks import CausalLM, assert_parameters_track

transformers = pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def _gpt2() -> nn.Module:
    cfg = transformers.GPT2Config(
        n_layer=2, n_head=2, n_embd=64, vocab_size=128, n_positions=64,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
    )
    return CausalLM(transformers.GPT2LMHeadModel(cfg))


def _llama() -> nn.Module:
    cfg = transformers.LlamaConfig(
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, hidden_size=64,
        intermediate_size=128, vocab_size=128, max_position_embeddings=64,
    )
    return CausalLM(transformers.LlamaForCausalLM(cfg))


def _bert() -> nn.Module:
    cfg = transformers.BertConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128,
        vocab_size=128, max_position_embeddings=64, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    return CausalLM(transformers.BertForMaskedLM(cfg))


def _opt() -> nn.Module:
    # Positions from a cumsum over the attention mask.
    cfg = transformers.OPTConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, ffn_dim=128, vocab_size=128,
        max_position_embeddings=64, word_embed_proj_dim=64, dropout=0.0, attention_dropout=0.0,
    )
    return CausalLM(transformers.OPTForCausalLM(cfg))


def _gpt_neox() -> nn.Module:
    # Fused qkv, partial rotary, parallel residual.
    cfg = transformers.GPTNeoXConfig(
        num_hidden_layers=2, num_attention_heads=4, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, hidden_dropout=0.0, attention_dropout=0.0,
    )
    return CausalLM(transformers.GPTNeoXForCausalLM(cfg))


def _qwen2() -> nn.Module:
    # Llama-like with qkv biases and grouped-query attention.
    cfg = transformers.Qwen2Config(
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, hidden_size=64,
        intermediate_size=128, vocab_size=128, max_position_embeddings=64,
    )
    return CausalLM(transformers.Qwen2ForCausalLM(cfg))


def _roberta() -> nn.Module:
    # Position ids from a cumsum over the non-padding tokens.
    cfg = transformers.RobertaConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    )
    return CausalLM(transformers.RobertaForMaskedLM(cfg))


def _distilbert() -> nn.Module:
    cfg = transformers.DistilBertConfig(
        n_layers=2, n_heads=2, dim=64, hidden_dim=128, vocab_size=128, max_position_embeddings=64,
        dropout=0.0, attention_dropout=0.0,
    )
    return CausalLM(transformers.DistilBertForMaskedLM(cfg))


def _phi() -> nn.Module:
    # Parallel attention/MLP block, partial rotary, biases everywhere.
    cfg = transformers.PhiConfig(
        num_hidden_layers=2, num_attention_heads=4, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0,
    )
    return CausalLM(transformers.PhiForCausalLM(cfg))


def _sgd(m: nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)


@pytest.mark.parametrize(
    "make_model,make_opt",
    [
        (_gpt2, _sgd),
        (_llama, lambda m: torch.optim.AdamW(m.parameters(), lr=1e-3)),
        (_bert, _sgd),
        (_opt, _sgd),
        (_gpt_neox, _sgd),
        (_qwen2, _sgd),
        (_roberta, _sgd),
        (_distilbert, _sgd),
        (_phi, _sgd),
    ],
    ids=["gpt2", "llama", "bert", "opt", "gpt_neox", "qwen2", "roberta", "distilbert", "phi"],
)
def test_transformers_model_trains_like_eager(make_model, make_opt):
    torch.manual_seed(0)
    eager = make_model()
    compiled = copy.deepcopy(eager)
    init = copy.deepcopy(eager)
    eager_opt, nova_opt = make_opt(eager), make_opt(compiled)
    step = nova.jit(compiled, nova_opt)
    gen = torch.Generator().manual_seed(3)
    for _ in range(5):
        ids = torch.randint(0, 128, (2, 16), generator=gen)
        loss = eager(ids, ids)
        loss.backward()
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        nova_loss = step(ids, ids)
        assert abs(float(nova_loss) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    assert_parameters_track(eager, compiled, init)


class ImageClassifier(nn.Module):
    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, pixels: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.model(pixel_values=pixels, labels=labels).loss


def _vit() -> nn.Module:
    cfg = transformers.ViTConfig(
        image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, num_labels=5, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
    )
    return ImageClassifier(transformers.ViTForImageClassification(cfg))


def _resnet() -> nn.Module:
    cfg = transformers.ResNetConfig(
        num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic", num_labels=5,
    )
    return ImageClassifier(transformers.ResNetForImageClassification(cfg))


def _convnext() -> nn.Module:
    cfg = transformers.ConvNextConfig(
        num_channels=3, hidden_sizes=[8, 16], depths=[1, 1], num_stages=2, num_labels=5, image_size=32,
    )
    return ImageClassifier(transformers.ConvNextForImageClassification(cfg))


@pytest.mark.parametrize("make_model,size", [(_vit, 16), (_resnet, 32), (_convnext, 32)],
                         ids=["vit", "resnet", "convnext"])
def test_vision_model_trains_like_eager(make_model, size):
    """Losses, parameters and buffers (ResNet's BatchNorm statistics) after 4
    AdamW steps."""
    torch.manual_seed(0)
    eager = make_model()
    compiled = copy.deepcopy(eager)
    init = copy.deepcopy(eager)
    eager_opt = torch.optim.AdamW(eager.parameters(), lr=1e-3)
    step = nova.jit(compiled, torch.optim.AdamW(compiled.parameters(), lr=1e-3))
    gen = torch.Generator().manual_seed(3)
    for _ in range(4):
        pixels, labels = torch.randn(4, 3, size, size, generator=gen), torch.randint(0, 5, (4,), generator=gen)
        loss = eager(pixels, labels)
        loss.backward()
        eager_opt.step()
        eager_opt.zero_grad(set_to_none=True)
        assert abs(float(step(pixels, labels)) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    assert_parameters_track(eager, compiled, init)
    for (name, b_eager), b_nova in zip(eager.named_buffers(), compiled.buffers()):
        torch.testing.assert_close(b_nova, b_eager, rtol=1e-5, atol=1e-6, msg=name)
