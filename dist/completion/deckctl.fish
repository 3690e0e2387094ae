# fish completion for deckctl: commands and flags, and from a running deckd (the one --socket
# names, else the default, in the zone --zone names) app ids, sink ids, volume groups, zones and method names;
# a deckd that does not answer within 2 s completes none rather than hold the prompt.

function __deckctl_words
    set -l tokens (commandline -opc)
    set -l socket
    set -l zone
    for i in (seq (count $tokens))
        if test $i -lt (count $tokens)
            switch $tokens[$i]
                case --socket
                    set socket --socket $tokens[(math $i + 1)]
                case --zone
                    set zone --zone $tokens[(math $i + 1)]
            end
        end
    end
    deckctl --timeout 2 $socket $zone complete $argv 2>/dev/null
end

# Succeeds when the command typed is one of $argv[2..] and $argv[1] arguments follow it ("any": any number).
function __deckctl_at
    set -l tokens (commandline -opc)
    set -e tokens[1]
    while set -q tokens[1]
        switch $tokens[1]
            case --socket --zone --timeout
                set -e tokens[1]
            case '-*'
            case '*'
                break
        end
        set -e tokens[1]
    end
    set -q tokens[1]; or return 1
    contains -- $tokens[1] $argv[2..-1]; or return 1
    test $argv[1] = any; and return 0
    # The global options may follow the command too (until --): they are not its arguments.
    set -e tokens[1]
    set -l arguments 0
    set -l ended 0
    while set -q tokens[1]
        if test $ended = 0
            switch $tokens[1]
                case --socket --zone --timeout
                    set -e tokens[1]
                    set -e tokens[1]
                    continue
                case --json
                    set -e tokens[1]
                    continue
                case --
                    set ended 1
                    set -e tokens[1]
                    continue
            end
        end
        set arguments (math $arguments + 1)
        set -e tokens[1]
    end
    test $arguments -eq $argv[1]
end

function __deckctl_no_command
    not __deckctl_at any status apps launch move zones session volume sinks play pause toggle play-pause stop next previous \
        seek now-playing queue ui select back display events call complete
end

complete -c deckctl -f
# The global options, before the command or after it.
complete -c deckctl -l socket -r -F -d 'the control socket'
complete -c deckctl -l zone -x -a '(__deckctl_words zones)' -d 'act on this audio zone'
complete -c deckctl -l timeout -x -d 'seconds to wait for an answer (0: for ever)'
complete -c deckctl -l json -d 'print the raw JSON result'
# The rest before the command only.
complete -c deckctl -n __deckctl_no_command -l help -d 'print the help'
complete -c deckctl -n __deckctl_no_command -l version -d 'print the version'
complete -c deckctl -n __deckctl_no_command -a '(__deckctl_words commands)'
complete -c deckctl -n '__deckctl_at 0 launch ui move' -a '(__deckctl_words apps)'
complete -c deckctl -n '__deckctl_at 1 move' -a '(__deckctl_words zones)'
complete -c deckctl -n '__deckctl_at 0 volume' -a '(__deckctl_words groups)'
complete -c deckctl -n '__deckctl_at 1 volume' -a '+1 -1 mute unmute'
complete -c deckctl -n '__deckctl_at 0 sinks' -a select
complete -c deckctl -n '__deckctl_at any sinks; and not __deckctl_at 0 sinks' -a 'all (__deckctl_words sinks)'
complete -c deckctl -n '__deckctl_at any events' -a '(__deckctl_words topics)'
complete -c deckctl -n '__deckctl_at 0 call' -a '(__deckctl_words methods)'
complete -c deckctl -n '__deckctl_at 0 complete' -a 'commands topics apps sinks groups zones methods'
complete -c deckctl -n '__deckctl_at any display' -l driving -x -a 'on off'
complete -c deckctl -n '__deckctl_at any display' -l attached -x -a 'on off'
complete -c deckctl -n '__deckctl_at any now-playing' -l follow -d 'print each change'
complete -c deckctl -n '__deckctl_at any now-playing' -l format -x -d "like '{{artist}} - {{title}}'"
