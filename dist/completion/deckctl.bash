# bash completion for deckctl: commands and flags, and from a running deckd (the one --socket
# names, else the default, in the zone --zone names) app ids, sink ids, volume groups, zones and method names;
# a deckd that does not answer within 2 s completes none rather than hold the prompt.

_deckctl_words() {
    deckctl --timeout 2 "${_deckctl_socket[@]}" "${_deckctl_zone[@]}" complete "$1" 2>/dev/null
}

_deckctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local i command="" at=0
    _deckctl_socket=() _deckctl_zone=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --socket) _deckctl_socket=(--socket "${COMP_WORDS[i+1]}"); ((i++)) ;;
            --zone) _deckctl_zone=(--zone "${COMP_WORDS[i+1]}"); ((i++)) ;;
            --timeout) ((i++)) ;;
            -*) ;;
            *) command=${COMP_WORDS[i]}; at=$i; break ;;
        esac
    done
    # The global options may follow the command too (until --): they are not its arguments.
    local argument=1 ended=0
    for ((i = at + 1; at > 0 && i < COMP_CWORD; i++)); do
        if ((!ended)); then
            case ${COMP_WORDS[i]} in
                --socket) _deckctl_socket=(--socket "${COMP_WORDS[i+1]}"); ((i++)); continue ;;
                --zone) _deckctl_zone=(--zone "${COMP_WORDS[i+1]}"); ((i++)); continue ;;
                --timeout) ((i++)); continue ;;
                --json) continue ;;
                --) ended=1; continue ;;
            esac
        fi
        ((argument++))
    done
    if [[ $prev == --timeout ]] && ((!ended)); then
        COMPREPLY=()
        return
    fi
    if [[ $prev == --socket ]]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    if [[ $prev == --zone ]]; then
        _deckctl_zone=()
        mapfile -t COMPREPLY < <(compgen -W "$(_deckctl_words zones)" -- "$cur")
        return
    fi
    local words=""
    if [[ -z $command ]]; then
        words="--socket --zone --timeout --json --help --version $(_deckctl_words commands)"
    else
        case $command in
            launch|ui) ((argument == 1)) && words=$(_deckctl_words apps) ;;
            move)
                if ((argument == 1)); then words=$(_deckctl_words apps); elif ((argument == 2)); then words=$(_deckctl_words zones); fi ;;
            volume)
                if ((argument == 1)); then words=$(_deckctl_words groups); else words="+1 -1 mute unmute"; fi ;;
            sinks)
                if ((argument == 1)); then words="select"; else words="all $(_deckctl_words sinks)"; fi ;;
            events) words=$(_deckctl_words topics) ;;
            call) ((argument == 1)) && words=$(_deckctl_words methods) ;;
            complete) ((argument == 1)) && words="commands topics apps sinks groups zones methods" ;;
            display)
                if [[ $prev == --driving || $prev == --attached ]]; then words="on off"; else words="--driving --attached"; fi ;;
            now-playing) words="--follow --format" ;;
        esac
        words="$words --help"
    fi
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _deckctl deckctl
