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

Compared after 5 AdamW steps: every loss (relative 1e-4) and every
parameter (relative norm error of the update 1e-3), the key projections'
biases left out (their true gradient is 0: AdamW moves them on rounding
noise, in eager and in Nova alike). With dropout, each family is compared
with its captured graph run eagerly on the same seeds (Nova's masks are not
eager torch's).
"""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import nova
from training_checks import CausalLM, assert_matches_captured_reference, assert_parameters_track, eager_step

transformers = pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def _fresh_cache(fresh_cache: None) -> None:
    """Every test here compiles into a cache of its own."""


def _gpt2(p: float = 0.0) -> nn.Module:
    cfg = transformers.GPT2Config(
        n_layer=2, n_head=2, n_embd=64, vocab_size=128, n_positions=64,
        resid_pdrop=p, embd_pdrop=p, attn_pdrop=p,
    )
    return CausalLM(transformers.GPT2LMHeadModel(cfg))


def _llama(p: float = 0.0) -> nn.Module:
    cfg = transformers.LlamaConfig(
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, hidden_size=64,
        intermediate_size=128, vocab_size=128, max_position_embeddings=64, attention_dropout=p,
    )
    return CausalLM(transformers.LlamaForCausalLM(cfg))


def _bert(p: float = 0.0) -> nn.Module:
    cfg = transformers.BertConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128,
        vocab_size=128, max_position_embeddings=64, hidden_dropout_prob=p,
        attention_probs_dropout_prob=p,
    )
    return CausalLM(transformers.BertForMaskedLM(cfg))


def _opt(p: float = 0.0) -> nn.Module:
    # Positions from a cumsum over the attention mask.
    cfg = transformers.OPTConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, ffn_dim=128, vocab_size=128,
        max_position_embeddings=64, word_embed_proj_dim=64, dropout=p, attention_dropout=p,
    )
    return CausalLM(transformers.OPTForCausalLM(cfg))


def _gpt_neox(p: float = 0.0) -> nn.Module:
    # Fused qkv, partial rotary, parallel residual.
    cfg = transformers.GPTNeoXConfig(
        num_hidden_layers=2, num_attention_heads=4, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, hidden_dropout=p, attention_dropout=p,
    )
    return CausalLM(transformers.GPTNeoXForCausalLM(cfg))


def _qwen2(p: float = 0.0) -> nn.Module:
    # Llama-like with qkv biases and grouped-query attention.
    cfg = transformers.Qwen2Config(
        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, hidden_size=64,
        intermediate_size=128, vocab_size=128, max_position_embeddings=64, attention_dropout=p,
    )
    return CausalLM(transformers.Qwen2ForCausalLM(cfg))


def _roberta(p: float = 0.0) -> nn.Module:
    # Position ids from a cumsum over the non-padding tokens.
    cfg = transformers.RobertaConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, hidden_dropout_prob=p, attention_probs_dropout_prob=p,
    )
    return CausalLM(transformers.RobertaForMaskedLM(cfg))


def _distilbert(p: float = 0.0) -> nn.Module:
    cfg = transformers.DistilBertConfig(
        n_layers=2, n_heads=2, dim=64, hidden_dim=128, vocab_size=128, max_position_embeddings=64,
        dropout=p, attention_dropout=p,
    )
    return CausalLM(transformers.DistilBertForMaskedLM(cfg))


def _phi(p: float = 0.0) -> nn.Module:
    # Parallel attention/MLP block, partial rotary, biases everywhere.
    cfg = transformers.PhiConfig(
        num_hidden_layers=2, num_attention_heads=4, hidden_size=64, intermediate_size=128, vocab_size=128,
        max_position_embeddings=64, resid_pdrop=p, embd_pdrop=p, attention_dropout=p,
    )
    return CausalLM(transformers.PhiForCausalLM(cfg))


FAMILIES = {
    "gpt2": _gpt2, "llama": _llama, "bert": _bert, "opt": _opt, "gpt_neox": _gpt_neox, "qwen2": _qwen2,
    "roberta": _roberta, "distilbert": _distilbert, "phi": _phi,
}  # fmt: skip


# Attention heads of the fused-qkv family (GPT-NeoX), for the key bias.
HEADS = 4


def _batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    gen = torch.Generator().manual_seed(3)
    return [(ids, ids) for ids in (torch.randint(0, 128, (2, 16), generator=gen) for _ in range(steps))]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_transformers_model_trains_like_eager(family):
    """5 AdamW steps without dropout: every loss and parameter like eager."""
    torch.manual_seed(0)
    eager = FAMILIES[family]()
    compiled = copy.deepcopy(eager)
    init = copy.deepcopy(eager)
    eager_opt = torch.optim.AdamW(eager.parameters(), lr=1e-3)
    step = nova.jit(compiled, torch.optim.AdamW(compiled.parameters(), lr=1e-3))
    for ids, labels in _batches(5):
        loss = eager_step(eager, eager_opt, (ids, labels))
        nova_loss = step(ids, labels)
        assert abs(float(nova_loss) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    assert_parameters_track(eager, compiled, init, heads=HEADS)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_transformers_model_with_dropout_matches_its_reference(family):
    """With dropout 0.1, 4 AdamW steps against the captured reference."""
    assert_matches_captured_reference(lambda: FAMILIES[family](0.1), _batches(4), heads=HEADS)


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
        loss = eager_step(eager, eager_opt, (pixels, labels))
        assert abs(float(step(pixels, labels)) - float(loss)) <= 1e-4 * abs(float(loss))
    step.sync()
    assert_parameters_track(eager, compiled, init)
    for (name, b_eager), b_nova in zip(eager.named_buffers(), compiled.buffers()):
        torch.testing.assert_close(b_nova, b_eager, rtol=1e-5, atol=1e-6, msg=name)
