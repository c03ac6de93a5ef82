#!/usr/bin/zsh -f
# Completes LINE in a real interactive zsh (on a pseudo-terminal, with
# compinit and the completion functions of COMPDIR) by pressing Tab, and
# prints each match the completion system offered, one per line. zsh's own
# compadd still runs; a wrapper only records what it was given to match.
#   zsh_complete.zsh COMPDIR LINE
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT='' RPROMPT='' PROMPT_EOL_MARK=''"
zpty -w z "fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; local __h; for __h in $__hits; do print -r -- "<HI""T>$__h"; done; builtin compadd "$@"; }'
zpty -w z 'comppostfuncs=(exit)'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "$2"$'\t'
local chunk all=''
while zpty -r z chunk; do all+=$chunk; done
print -r -- ${all//$'\r'/} | grep -o '<HIT>.*' | cut -c6-
