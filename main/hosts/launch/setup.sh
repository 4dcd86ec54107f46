#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for Kiln: Debian's Chromium (the web host's browser and the e2e
# browser), Jupyter (the embedded notebook server) and bubblewrap (the sandbox of agent code), then the npm
# dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/../../.."

# python3-nbconvert: Export as HTML / script. sympy, altair, plotly, pandas: the rich-output e2e tests.
# bubblewrap: the sandbox agent code runs in. passt (pasta): sandbox.network's outbound-only network.
# python3-venv: the environment tests make venvs as operators do. python3-debugpy: the notebook debugger.
PACKAGES=(chromium jupyter-server jupyter-core jupyter-client python3-ipykernel python3-zmq python3-nbformat ripgrep
  bubblewrap passt python3-nbconvert python3-sympy python3-altair python3-plotly python3-pandas
  python3-venv python3-debugpy)
missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "Kiln setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Agent code runs in a bubblewrap sandbox, which needs unprivileged user namespaces.
if ! bwrap --unshare-user --unshare-net --ro-bind / / true 2>/dev/null; then
  echo "Kiln setup: warning: bubblewrap cannot make a sandbox here (user namespaces off?); agent code will run only in trusted folders, unsandboxed"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
