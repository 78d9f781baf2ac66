# Source on the GPU box (Python 3.12, torch, no compiler): installs the carried
# runtime wheels (.whl/: iree-base-runtime, ml_dtypes for cp312) and Nova's pure
# Python runtime side (python/nova + runtime/ as nova.runtime) into /tmp/site.
#   . tools/device/gpu-env.sh && python -m nova.cli bench train --artifacts bench-artifacts ...
set -e
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
rm -rf /tmp/site/nova
cp -r python/nova /tmp/site/nova
rm -rf /tmp/site/nova/runtime
cp -r runtime /tmp/site/nova/runtime
export PYTHONPATH=/tmp/site
export NOVA_COMMIT=$(cat .nova-commit 2>/dev/null || echo unknown)
set +e
