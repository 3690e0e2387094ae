import DeckBase
import DeckNowPlaying

/// What the MPRIS interfaces show of the center, and how property writes become commands.
extension MPRISBridge {
    /// The properties of `interface`, or nil for an interface the player does not have.
    func properties(of interface: String) -> [(String, DBusValue)]? {
        switch interface {
        case MPRISBridge.rootInterface:
            [("CanQuit", .bool(false)), ("CanRaise", .bool(false)), ("HasTrackList", .bool(false)), ("Identity", .string(identity)),
             ("SupportedUriSchemes", .strings([])), ("SupportedMimeTypes", .strings([]))]
        case MPRISBridge.playerInterface: playerProperties()
        default: nil
        }
    }

    func playerProperties() -> [(String, DBusValue)] {
        let info = center.info
        let commands = center.commands
        let status = switch info.playbackState {
        case .playing: "Playing"
        case .paused, .interrupted: "Paused"
        case .stopped: "Stopped"
        }
        let loopStatus = switch center.queue.repeatMode {
        case .off: "None"
        case .one: "Track"
        case .all: "Playlist"
        }
        return [
            ("PlaybackStatus", .string(status)),
            ("LoopStatus", .string(loopStatus)),
            ("Rate", .double(info.playbackState == .playing ? info.rate : info.defaultRate)),
            ("Shuffle", .bool(center.queue.shuffle != .off)),
            ("Metadata", .dictionary(metadata)),
            ("Volume", .double(1)),
            ("Position", .int64(MediaTime(clamping: info.elapsed(at: loop.now)).microseconds)),
            ("MinimumRate", .double(MPRISBridge.rates.lowerBound)),
            ("MaximumRate", .double(MPRISBridge.rates.upperBound)),
            ("CanGoNext", .bool(commands.contains(.next))),
            ("CanGoPrevious", .bool(commands.contains(.previous))),
            ("CanPlay", .bool(commands.contains(.play) || commands.contains(.togglePlayPause))),
            ("CanPause", .bool(commands.contains(.pause) || commands.contains(.togglePlayPause))),
            ("CanSeek", .bool(commands.contains(.seek) || commands.contains(.skip))),
            ("CanControl", .bool(true)),
        ]
    }

    /// The current track's object path (MPRIS wants one to accept SetPosition).
    var trackID: String {
        center.queue.current.map { "/org/deck/track/\($0.id)" } ?? (center.owner == nil ? "/org/mpris/MediaPlayer2/TrackList/NoTrack" : "/org/deck/track/0")
    }

    private var metadata: [(String, DBusValue)] {
        let info = center.info
        var entries: [(String, DBusValue)] = [("mpris:trackid", .objectPath(trackID))]
        if let duration = info.duration { entries.append(("mpris:length", .int64(MediaTime(clamping: duration).microseconds))) }
        let file = artworkFile.url(for: info.artworkURI == nil ? center.artwork : nil)
        if let uri = info.artworkURI ?? file { entries.append(("mpris:artUrl", .string(uri))) }
        if let title = info.title { entries.append(("xesam:title", .string(title))) }
        if !info.artists.isEmpty { entries.append(("xesam:artist", .strings(info.artists))) }
        if let album = info.album { entries.append(("xesam:album", .string(album))) }
        if let albumArtist = info.albumArtist { entries.append(("xesam:albumArtist", .strings([albumArtist]))) }
        return entries
    }

    /// The rates a peer may set, as MinimumRate and MaximumRate say (`player.setRate` takes up to 16 too).
    static let rates = 0.0625...16.0

    /// What a property write asks for: LoopStatus, Shuffle and Rate are writable; a Rate of 0
    /// pauses, as MPRIS says. A writable property given a value it cannot take is invalid.
    package static func command(setting property: String, to value: DBusValue) -> PlayerCall {
        switch (property, value) {
        case ("LoopStatus", .string("None")): .run(.setRepeat(.off))
        case ("LoopStatus", .string("Track")): .run(.setRepeat(.one))
        case ("LoopStatus", .string("Playlist")): .run(.setRepeat(.all))
        case ("LoopStatus", _): .invalid("LoopStatus is None, Track or Playlist (s)")
        case ("Shuffle", .bool(let on)): .run(.setShuffle(on ? .items : .off))
        case ("Shuffle", _): .invalid("Shuffle is true or false (b)")
        case ("Rate", .double(0)): .run(.pause)
        case ("Rate", .double(let rate)) where rates.contains(rate): .run(.setRate(rate))
        case ("Rate", _): .invalid("Rate is 0 (pause) or from \(rates.lowerBound) to \(rates.upperBound) (d)")
        default: .unknown
        }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable"><method name="Introspect"><arg type="s" direction="out"/></method></interface>
         <interface name="org.freedesktop.DBus.Properties">
          <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
          <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
          <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
         </interface>
         <interface name="org.mpris.MediaPlayer2">
          <method name="Raise"/><method name="Quit"/>
          <property name="CanQuit" type="b" access="read"/><property name="CanRaise" type="b" access="read"/>
          <property name="HasTrackList" type="b" access="read"/><property name="Identity" type="s" access="read"/>
          <property name="SupportedUriSchemes" type="as" access="read"/><property name="SupportedMimeTypes" type="as" access="read"/>
         </interface>
         <interface name="org.mpris.MediaPlayer2.Player">
          <method name="Next"/><method name="Previous"/><method name="Pause"/><method name="PlayPause"/><method name="Stop"/><method name="Play"/>
          <method name="Seek"><arg type="x" name="Offset" direction="in"/></method>
          <method name="SetPosition"><arg type="o" name="TrackId" direction="in"/><arg type="x" name="Position" direction="in"/></method>
          <signal name="Seeked"><arg type="x" name="Position"/></signal>
          <property name="PlaybackStatus" type="s" access="read"/><property name="LoopStatus" type="s" access="readwrite"/>
          <property name="Rate" type="d" access="readwrite"/><property name="Shuffle" type="b" access="readwrite"/>
          <property name="Metadata" type="a{sv}" access="read"/><property name="Volume" type="d" access="read"/>
          <property name="Position" type="x" access="read"/><property name="MinimumRate" type="d" access="read"/>
          <property name="MaximumRate" type="d" access="read"/><property name="CanGoNext" type="b" access="read"/>
          <property name="CanGoPrevious" type="b" access="read"/><property name="CanPlay" type="b" access="read"/>
          <property name="CanPause" type="b" access="read"/><property name="CanSeek" type="b" access="read"/>
          <property name="CanControl" type="b" access="read"/>
         </interface>
        </node>
        """
}
