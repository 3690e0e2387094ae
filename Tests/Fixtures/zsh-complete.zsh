# zsh-complete.zsh FPATH-DIR LINE OUT DUMP: types LINE into an interactive zsh whose fpath starts
# with FPATH-DIR, presses Tab, and appends each word the completion offered to OUT (one a line).
# DUMP is compinit's dump file: made by the first call, read by the next ones (scanning every
# completion function again is what takes a loaded machine long).
zmodload zsh/zpty
zpty shell zsh -f -i
zpty -w shell "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d ${(q)4}; PROMPT='> '"
zpty -w shell "compadd() { local -a offered; builtin compadd -O offered \"\$@\"; print -l -r -- \$offered >> ${(q)3}; builtin compadd \"\$@\" }"
zpty -w shell 'print -r -- READY-$((6 * 7))'
zpty -r shell ignored '*READY-42*'
# Tab, then clear the line and print a marker: zle finishes the completion before it reads on.
zpty -w -n shell "$2"$'\t'$'\C-u'
zpty -w shell 'print -r -- DONE-$((6 * 7))'
zpty -r shell ignored '*DONE-42*'
zpty -d shell
