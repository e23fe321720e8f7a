#!/usr/bin/env bash
# Installs what the headless-browser test needs (Scripts/headless-browser.py): Debian's chromium and
# chromium-driver, and the Selenium Python package; and the tools the credential-helper tests run for real: git
# (with `git http-backend`), openssl (a test CA) and kubectl. Idempotent; run as root on Debian 12 (CI). One line
# per step.
set -euo pipefail

# 4.51.0: 4.52.0 exists but needs a certifi newer than the package index offers here.
SELENIUM_VERSION="4.51.0"
PYTHON="${PYTHON:-python3}"

if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

apt_updated=0
apt_update_once() {
    if [ "$apt_updated" -eq 0 ]; then
        echo "apt-get update"
        $SUDO apt-get update -qq >/dev/null
        apt_updated=1
    fi
}

apt_install() {
    local missing=()
    for package in "$@"; do
        if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            echo "apt: $package already installed"
        else
            missing+=("$package")
        fi
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        # Only refresh the package lists when they are empty (a fresh image) or an install fails on stale lists.
        if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then apt_update_once; fi
        echo "apt: installing ${missing[*]}"
        if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
            >/dev/null; then
            apt_update_once
            DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
                >/dev/null
        fi
    fi
}

apt_install chromium chromium-driver
apt_install git openssl kubectl

if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    apt_install python3-pip
fi

installed="$("$PYTHON" -c 'import selenium; print(selenium.__version__)' 2>/dev/null || true)"
if [ "$installed" = "$SELENIUM_VERSION" ]; then
    echo "pip: selenium $SELENIUM_VERSION already installed"
else
    extra=()
    # Debian's own Python refuses pip installs (PEP 668) unless told otherwise; CI machines are throwaway.
    if "$PYTHON" -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        extra+=(--break-system-packages)
    fi
    echo "pip: installing selenium $SELENIUM_VERSION"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "${extra[@]}" "selenium==$SELENIUM_VERSION"
fi

echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo missing)"
echo "chromedriver: $(/usr/bin/chromedriver --version 2>/dev/null || echo missing)"
