#!/bin/sh
# check_install.sh: `make install` into a temporary prefix gives a working blecap, its bash, zsh
# and fish completions and man pages that render; `make uninstall` takes all of it away again,
# leaving the prefix empty. Run by `make test` (and `make check-install`); it reuses the release
# build when one is up to date.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "check_install: FAILED: $*" >&2; }
check() { # check DESCRIPTION COMMAND...
    what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}

prefix=$(mktemp -d)
stage=$(mktemp -d)
trap 'rm -rf "$prefix" "$stage"' EXIT

echo "check_install: make install PREFIX=$prefix"
$MAKE -s install PREFIX="$prefix" >/dev/null

# The binary runs from the prefix and names its version and commit.
version=$("$prefix/bin/blecap" --version) || version="(blecap --version failed)"
check "blecap --version printed '$version'" \
    sh -c 'printf "%s\n" "$1" | grep -Eqx "blecap [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)"' \
    sh "$version"
check "installed blecap cannot decode a bundled capture" \
    sh -c '"$1/bin/blecap" info captures/bumble/clean_heart_rate.central.btsnoop | grep -q "^frames: *[1-9]"' sh "$prefix"

# Completions: where each shell looks, for blecap, knowing its subcommands.
bash_completion=$prefix/share/bash-completion/completions/blecap
zsh_completion=$prefix/share/zsh/site-functions/_blecap
fish_completion=$prefix/share/fish/vendor_completions.d/blecap.fish
for file in "$bash_completion" "$zsh_completion" "$fish_completion"; do
    check "$file is missing or does not complete 'blecap replay'" \
        sh -c 'grep -q blecap "$1" && grep -q replay "$1"' sh "$file"
done
check "bash completion is not valid bash" bash -n "$bash_completion"
check "zsh completion does not start with #compdef blecap" sh -c 'head -1 "$1" | grep -q "^#compdef blecap"' sh "$zsh_completion"
if command -v zsh >/dev/null 2>&1; then check "zsh completion is not valid zsh" zsh -n "$zsh_completion"; fi
if command -v fish >/dev/null 2>&1; then check "fish completion is not valid fish" fish -n "$fish_completion"; fi

# Man pages: blecap.1 and one per subcommand, each an mdoc(7) page (what the plugin writes)
# with its title, NAME, SYNOPSIS and DESCRIPTION, that renders without a warning.
man1=$prefix/share/man/man1
subcommands=$("$prefix/bin/blecap" --help | sed -n '/^SUBCOMMANDS:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
check "blecap --help lists no subcommands" test -n "$subcommands"
for page in blecap $(printf '%s\n' $subcommands | sed 's/^/blecap./'); do
    file=$man1/$page.1
    check "$file is not blecap's man page (.Dt, NAME, SYNOPSIS, DESCRIPTION)" \
        sh -c 'grep -qx "\.Dt $(printf "%s" "$2" | tr a-z A-Z) 1" "$1" && grep -qx "\.Sh NAME" "$1" &&
               grep -qx "\.Sh SYNOPSIS" "$1" && grep -qx "\.Sh DESCRIPTION" "$1"' sh "$file" "$page"
done
# Rendering, with whatever formatter the machine has (none is required): every page renders
# without a warning, and blecap.lint(1) shows its synopsis and options.
render() {
    if command -v man >/dev/null 2>&1 && man --help 2>&1 | grep -q -- '--local-file'; then
        MANWIDTH=100 man -l "$1"
    elif command -v groff >/dev/null 2>&1; then
        groff -mandoc -Tutf8 -ww "$1"
    elif command -v mandoc >/dev/null 2>&1; then
        mandoc -Tutf8 -Wwarning "$1"
    else
        return 2
    fi
}
if render "$man1/blecap.1" >/dev/null 2>&1; then
    for file in "$man1"/blecap*.1; do
        # Formatters embolden with overstrike; strip it before looking for words.
        plain=$(render "$file" 2>/dev/null | sed 's/.\x08//g')
        complaints=$(render "$file" 2>&1 >/dev/null) || complaints="$complaints (exit status $?)"
        check "$file does not render cleanly: $complaints" test -z "$complaints"
        check "$file renders empty" test -n "$plain"
        if [ "$file" = "$man1/blecap.lint.1" ]; then
            check "blecap.lint(1) does not render its synopsis and --fail-on" \
                sh -c 'printf "%s\n" "$1" | grep -qE "blecap lint \[?paths" && printf "%s\n" "$1" | grep -q -- "--fail-on"' sh "$plain"
        fi
    done
else
    echo "check_install: no man, groff or mandoc here: man pages checked for structure only"
fi

echo "check_install: make uninstall PREFIX=$prefix"
$MAKE -s uninstall PREFIX="$prefix" >/dev/null
check "uninstall left $(find "$prefix" -mindepth 1 | head -5 | tr '\n' ' ')in the prefix" \
    sh -c '[ -d "$1" ] && [ -z "$(ls -A "$1")" ]' sh "$prefix"

# DESTDIR stages under another root; uninstall keeps directories something else still uses.
mkdir -p "$stage/opt/blecap/share/man/man1"
echo keep > "$stage/opt/blecap/share/man/man1/other.1"
$MAKE -s install DESTDIR="$stage" PREFIX=/opt/blecap >/dev/null
check "install with DESTDIR did not stage bin/blecap" test -x "$stage/opt/blecap/bin/blecap"
$MAKE -s uninstall DESTDIR="$stage" PREFIX=/opt/blecap >/dev/null
check "uninstall with DESTDIR did not leave exactly the other package's page: $(cd "$stage" && find . -mindepth 1 | tr '\n' ' ')" \
    sh -c '[ "$(cd "$1" && find . -mindepth 1 | sort | tr "\n" " ")" = "./opt ./opt/blecap ./opt/blecap/share ./opt/blecap/share/man ./opt/blecap/share/man/man1 ./opt/blecap/share/man/man1/other.1 " ]' sh "$stage"

echo "check_install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
