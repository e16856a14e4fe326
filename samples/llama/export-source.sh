#!/bin/bash
# Packs one commit of llama.cpp's public source into a .tar.xz for a machine without network access
# (the NVIDIA machine build-llama.sh runs on), with a COMMIT file naming it.
#
#   samples/llama/export-source.sh GIT_DIR COMMIT OUT.tar.xz
#
# GIT_DIR: a clone of https://github.com/ggml-org/llama.cpp (bare or not) holding COMMIT. The
# support table in docs/support.md was made from 82bb48500a9a6b3374da2cf5811695369278e4d3
# (2026-08-07). Files whose content the clone lacks (a partial clone: some of models/*.gguf, the
# vocabularies of llama.cpp's tokenizer tests) are left out and listed; the build needs none of them,
# make-tiny-model.py needs models/ggml-vocab-llama-spm.gguf.
set -euo pipefail
git_dir=${1:?usage: export-source.sh GIT_DIR COMMIT OUT.tar.xz}
commit=$(git -C "$git_dir" rev-parse --verify "${2:?usage: export-source.sh GIT_DIR COMMIT OUT.tar.xz}^{commit}")
out=${3:?usage: export-source.sh GIT_DIR COMMIT OUT.tar.xz}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the files whose content the clone holds (git archive stops at the first missing object, and this
# git's archive ignores exclude pathspecs of missing objects), written one by one
git -C "$git_dir" ls-tree -r -z "$commit" | while IFS= read -r -d '' entry; do
    meta=${entry%%$'\t'*}; path=${entry#*$'\t'}
    read -r mode type obj <<< "$meta"
    [ "$type" = blob ] || continue
    if ! git -C "$git_dir" cat-file -e "$obj" 2>/dev/null; then echo "left out (not in the clone): $path"; continue; fi
    mkdir -p "$tmp/$(dirname "$path")"
    if [ "$mode" = 120000 ]; then ln -s "$(git -C "$git_dir" cat-file blob "$obj")" "$tmp/$path"
    else git -C "$git_dir" cat-file blob "$obj" > "$tmp/$path"
        if [ "$mode" = 100755 ]; then chmod +x "$tmp/$path"; fi
    fi
done
echo "$commit $(git -C "$git_dir" log -1 --format='%cI %s' "$commit")" > "$tmp/COMMIT"
tar -cf - -C "$tmp" . | xz -T0 -6 > "$out"
echo "$out: llama.cpp $(cat "$tmp/COMMIT")"
