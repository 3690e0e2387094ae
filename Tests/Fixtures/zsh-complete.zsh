# zsh-complete.zsh FPATH-DIR LINE OUT: types LINE into an interactive zsh whose fpath starts with
# FPATH-DIR, presses Tab, and appends each word the completion offered to OUT (one a line).
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; PROMPT='> '"
zpty -w shell "compadd() { local -a offered; builtin compadd -O offered \"\$@\"; print -l -r -- \$offered >> ${(q)3}; builtin compadd \"\$@\" }"
zpty -w shell 'print -r -- READY-$((6 * 7))'
zpty -r shell ignored '*READY-42*'
# Tab, then clear the line and print a marker: zle finishes the completion before it reads on.
zpty -w -n shell "$2"$'\t'$'\C-u'
zpty -w shell 'print -r -- DONE-$((6 * 7))'
zpty -r shell ignored '*DONE-42*'
zpty -d shell
