import CDeckPlugin
import DeckABI
import Testing

/// The Swift mirrors the runtime and DeckSDK share carry plugin.h's own numbers, both ways.
@Suite struct ABIValuesTests {
    @Test func playerValuesAreNumberedAsPluginHNumbersThem() {
        #expect(PlaybackState.allCases.map(\.code) == [DECK_PLAYBACK_STOPPED, DECK_PLAYBACK_PLAYING, DECK_PLAYBACK_PAUSED,
                                                        DECK_PLAYBACK_INTERRUPTED].map { Int32($0.rawValue) })
        #expect(MediaType.allCases.map(\.code) == [DECK_MEDIA_AUDIO, DECK_MEDIA_PODCAST, DECK_MEDIA_AUDIOBOOK, DECK_MEDIA_RADIO].map { Int32($0.rawValue) })
        #expect(ShuffleMode.allCases.map(\.code) == [DECK_SHUFFLE_OFF, DECK_SHUFFLE_ITEMS].map { Int32($0.rawValue) })
        #expect(RepeatMode.allCases.map(\.code) == [DECK_REPEAT_OFF, DECK_REPEAT_ONE, DECK_REPEAT_ALL].map { Int32($0.rawValue) })
        #expect(CommandResult.allCases.map { Int32($0.rawValue) } == [DECK_COMMAND_SUCCESS, DECK_COMMAND_NO_SUCH_CONTENT,
                                                                      DECK_COMMAND_NO_ACTIONABLE_NOW_PLAYING_ITEM, DECK_COMMAND_FAILED].map { Int32($0.rawValue) })
        #expect(RemoteCommand.Kind.bookmark.rawValue == Int(DECK_COMMAND_BOOKMARK.rawValue))
        #expect(RemoteCommand.Kind.setShuffle.rawValue == Int(DECK_COMMAND_SET_SHUFFLE.rawValue))
        for state in PlaybackState.allCases { #expect(PlaybackState(code: state.code) == state) }
        #expect(PlaybackState(code: -1) == nil && PlaybackState(code: 4) == nil && RepeatMode(code: .max) == nil)
    }

    @Test func eachCommandKindIsNamedAsItsCase() {
        for kind in RemoteCommand.Kind.allCases { #expect(kind.name == "\(kind)") }
    }

    @Test func aRemoteCommandCrossesAsTheCStructAndBack() {
        let commands: [RemoteCommand] = [.play, .seek(12.5), .skip(-15), .setRate(1.5), .setShuffle(.items), .setRepeat(.one), .bookmark]
        for command in commands { #expect(RemoteCommand(command.raw) == command) }
        var unknown = deck_remote_command_t()
        unknown.command = 99
        #expect(RemoteCommand(unknown) == nil)
        unknown.command = Int32(DECK_COMMAND_SET_REPEAT.rawValue)
        unknown.mode = 7
        #expect(RemoteCommand(unknown) == .setRepeat(.off), "an unknown mode reads as off")
    }

    @Test func focusValuesAreNumberedAsPluginHNumbersThem() {
        #expect(FocusRequestType.allCases.map(\.code) == [DECK_FOCUS_GAIN, DECK_FOCUS_GAIN_TRANSIENT, DECK_FOCUS_GAIN_TRANSIENT_MAY_DUCK,
                                                           DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE].map { Int32($0.rawValue) })
        #expect(FocusRequestType(code: 0) == nil && FocusRequestType(code: 5) == nil)
        #expect(FocusResult(code: FocusResult.delayed("x").code, reason: "behind a call") == .delayed("behind a call"))
        #expect(FocusResult(code: 42, reason: "?") == .rejected("?"))
        let changes: [FocusChange] = [.gain(shouldResume: true), .loss, .lossTransient, .duck, .unduck]
        for change in changes {
            let resume = if case .gain(let shouldResume) = change { shouldResume } else { false }
            #expect(FocusChange(code: Int32(change.code.rawValue), shouldResume: resume) == change)
        }
    }

    @Test func statusesAreNumberedAsPluginHNumbersThem() {
        #expect([DeckStatus.ok, .invalid, .notEntitled, .limit, .state, .unsupported, .internal, .notOwner].map(\.rawValue)
                == [DECK_OK, DECK_E_INVALID, DECK_E_NOT_ENTITLED, DECK_E_LIMIT, DECK_E_STATE, DECK_E_UNSUPPORTED, DECK_E_INTERNAL,
                    DECK_E_NOT_OWNER].map { Int32($0) })
        #expect(DeckStatus(code: -99) == .internal && DeckStatus(code: 5) == .ok)
    }
}
