# Prints what zsh completes for the line in $1, one match a line: a real interactive zsh in a
# pseudo-terminal (zpty), its completion system loaded with compinit from $FPATH_DIR first,
# compadd wrapped to print each match. Used by FrontTests.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''"
zpty -w z "fpath=($FPATH_DIR \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-(|-))]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits __dscr __tmp
  if (( $@[(I)-d] )); then __tmp=${@[$[${@[(i)-d]}+1]]}; if [[ $__tmp == \(* ]]; then eval "__dscr=$__tmp"; else __dscr=( "${(@P)__tmp}" ); fi; fi
  builtin compadd -A __hits -D __dscr "$@"
  setopt localoptions norcexpandparam extendedglob
  typeset -A apre hpre hsuf asuf
  zparseopts -E P:=apre p:=hpre S:=asuf s:=hsuf
  for i in {1..$#__hits}; do print -r -- "<match>$__hits[$i]"; done
}'
zpty -w z 'zstyle ":completion:*:default" list-colors ""; zstyle ":completion:*" list-grouped false; zstyle ":completion:*" insert-tab false'
zpty -w z 'bindkey "^I" complete-word; null-line () { echo -E - $'"'"'\0'"'"' }; compprefuncs=( null-line ); comppostfuncs=( null-line exit )'
zpty -w z "$1"$'\t'
integer tog=0
while zpty -r z; do :; done | while IFS= read -r line; do
  if [[ $line == *$'\0\r' ]]; then (( tog++ )) && return 0 || continue; fi
  (( tog )) && [[ $line == *"<match>"* ]] && echo -E - "${${line#*<match>}%$'\r'}"
done
