#!/usr/bin/env bash
# Keeps the documentation citations true:
#  1. every `docs/<name>.md` or `docs/<folder>/<name>.md` named in the
#     code, tests, CI scripts and Markdown files exists, and so does the
#     section (§N or §N.M) written right after it;
#  2. every such page, and README.md and CONTRIBUTING.md, cited with a
#     section name right after it (a comma or an opening parenthesis, then
#     the name in double quotes) has a heading that contains that name;
#  3. every relative link in the README, CONTRIBUTING.md and docs/ (and
#     its folders) points to a file that exists and, when it names an
#     anchor, to a heading that produces it.
# Plain bash, grep and awk, so it runs anywhere the CI does.
set -euo pipefail
cd "$(dirname "$0")/.."

failures=0
fail() {
  echo "check-doc-links: $*" >&2
  failures=$((failures + 1))
}

# The headings of a Markdown file, outside fenced code blocks.
headings() {
  awk '/^```/ { fenced = !fenced; next } !fenced && /^#+ / { print }' "$1"
}

# Whether Markdown file $1 has a heading numbered $2 ("4", "4.3"):
# "## 4. Title" or "### 4.3 Title".
has_section() {
  local number=${2//./\\.}
  headings "$1" | grep -Eq "^#+ ${number}([. ]|$)"
}

# GitHub's anchor for each heading of $1: lower case, punctuation dropped,
# blanks turned into hyphens.
anchors() {
  headings "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' \
    | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  | grep -E '(\.rs|\.md|\.sh|\.toml)$|^\.ci/' | sort -u)

# 1. Citations of docs/*.md, with an optional section right after them.
checked=0
while IFS= read -r hit; do
  [ -n "$hit" ] || continue
  location=${hit%%:docs/*}
  citation=docs/${hit#*:docs/}
  doc=${citation%%.md*}.md
  checked=$((checked + 1))
  if [ ! -f "$doc" ]; then
    fail "$location: cites $doc, which does not exist"
    continue
  fi
  if [[ $citation =~ §([0-9]+(\.[0-9]+)*) ]]; then
    section=${BASH_REMATCH[1]}
    has_section "$doc" "$section" || fail "$location: cites $doc §$section, which has no such section"
  fi
done < <(grep -noE 'docs/([a-z0-9-]+/)*[a-z0-9-]+\.md`?( §[0-9]+(\.[0-9]+)*)?' "${files[@]}" 2>/dev/null || true)

# 2. Citations by section name.
named=0
while IFS= read -r hit; do
  [ -n "$hit" ] || continue
  location=${hit%%:*}:$(cut -d: -f2 <<<"$hit")
  citation=${hit#*:*:}
  doc=$(grep -oE 'docs/([a-z0-9-]+/)*[a-z0-9-]+\.md|README|CONTRIBUTING' <<<"$citation" | head -n1)
  case $doc in README | CONTRIBUTING) doc=$doc.md ;; esac
  [ -f "$doc" ] || continue
  name=${citation#*\"}
  name=${name%\"}
  named=$((named + 1))
  headings "$doc" | sed -E 's/^#+ +//; s/^[0-9]+(\.[0-9]+)*\.? +//' \
    | grep -qF -- "$name" || fail "$location: cites $doc \"$name\", which has no heading of that name"
done < <(grep -noE '(docs/([a-z0-9-]+/)*[a-z0-9-]+\.md|(^|[^/A-Za-z_.-])(README|CONTRIBUTING)(\.md)?)`?,? \(?"[^"]+"' \
  "${files[@]}" 2>/dev/null || true)

# 3. Relative links in the README, CONTRIBUTING.md and docs/.
links=0
mapfile -t pages < <(printf '%s\n' README.md CONTRIBUTING.md; find docs -name '*.md' | sort)
for md in "${pages[@]}"; do
  [ -f "$md" ] || continue
  dir=$(dirname "$md")
  while IFS= read -r hit; do
    [ -n "$hit" ] || continue
    line=${hit%%:*}
    target=${hit#*:](}
    target=${target%)}
    case $target in http://* | https://* | mailto:*) continue ;; esac
    links=$((links + 1))
    path=${target%%#*}
    anchor=
    [[ $target == *#* ]] && anchor=${target#*#}
    [ -n "$path" ] && file=$dir/$path || file=$md
    if [ ! -f "$file" ]; then
      fail "$md:$line: link to $target, but $file does not exist"
    elif [ -n "$anchor" ] && ! anchors "$file" | grep -qx -- "$anchor"; then
      fail "$md:$line: link to $target, but $file has no heading with that anchor"
    fi
  done < <(grep -noE '\]\([^) ]+\)' "$md" || true)
done

if [ "$failures" -gt 0 ]; then
  echo "check-doc-links: $failures problem(s)" >&2
  exit 1
fi
echo "check-doc-links: $checked citations of docs/, $named by section name and $links relative links resolve"
