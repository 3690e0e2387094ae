import DeckBase
import DeckPlugins
import DeckUI

/// Plugins' `deck.ui` and `deck.content` host calls.
extension InterfaceCoordinator {
    func handle(_ call: UICall, instance: Int) -> Result<UIAnswer, PluginCallError> {
        guard let plugin = plugins.plugin(instance: instance) else {
            return .failure(PluginCallError(status: .state, message: "the plugin is still loading (in init); describe templates once it is active"))
        }
        guard plugin.state == .active else {
            return .failure(PluginCallError(status: .state, message: "\(plugin.id) is \(plugin.state.rawValue); describe templates once it is active"))
        }
        guard let app = apps[plugin.id] else {
            let why = plugin.offersUI || plugin.offersContent ? "it is being unloaded" : "it offers neither deck.ui nor deck.content"
            return .failure(PluginCallError(status: .state, message: "\(plugin.id) has no screen: \(why)"))
        }
        do throws(UIError) {
            let answer = try perform(call, app)
            onChange?()
            return .success(answer)
        } catch {
            let status: DeckStatus = switch error {
            case .invalid: .invalid
            case .notEntitled: .notEntitled
            case .limit: .limit
            case .state: .state
            }
            logger.debug("ui", "\(plugin.id): refused: \(error)")
            return .failure(PluginCallError(status: status, message: error.description))
        }
    }

    private func perform(_ call: UICall, _ app: AppInterface) throws(UIError) -> UIAnswer {
        let limits = limits(for: app)
        switch call {
        case .addImage(let bytes): return UIAnswer(id: try app.addImage(bytes))
        case .removeImage(let id):
            try app.removeImage(id)
            return UIAnswer()
        case .complete(let token):
            guard case .selection? = finish(token, app: app.appID) else { throw .state("token \(token) is not waiting (completed already or timed out)") }
            return UIAnswer()
        case .reloadContent:
            app.content.reload()
            return UIAnswer()
        case .nowPlayingContent(let ids):
            app.content.nowPlayingIDs = ids
            return UIAnswer()
        case .completeContent(let token, let status):
            switch finish(token, app: app.appID) {
            case .load(_, let path)?:
                loadCompleted(app: app.appID, path: path, status: status)
            case .play(_, let path)?:
                if status != .ok { logger.warning("ui", "\(app.appID) could not play \"\(path)\": \(status)") }
            default: throw .state("token \(token) is not waiting (completed already or timed out)")
            }
            return UIAnswer()
        default: break
        }
        guard profile(of: app).attached else { throw .state("no display is attached; templates are described when display_changed says it attached") }
        let answer: UIAnswer
        switch call {
        case .setRoot(let text): answer = UIAnswer(try app.setRoot(text, limits: limits))
        case .push(let text): answer = UIAnswer(try app.push(text, limits: limits))
        case .present(let text): answer = UIAnswer(id: try app.present(text, limits: limits))
        case .update(let id, let text): answer = UIAnswer(id: id, dropped: try app.update(id, text, limits: limits))
        case .pop: try app.pop(); answer = UIAnswer()
        case .popToRoot: try app.popToRoot(); answer = UIAnswer()
        case .dismiss: try app.dismiss(); answer = UIAnswer()
        default: answer = UIAnswer()
        }
        if answer.dropped > 0, app.firstTruncation(of: answer.id) {
            logger.info("ui", "\(app.appID): template \(answer.id) shows less than it holds at this display "
                        + "(\(answer.dropped) entries or texts cut; listItems \(limits.listItems), sections \(limits.sections))")
        }
        return answer
    }
}

private extension UIAnswer {
    init(_ result: (id: UInt64, dropped: Int)) { self.init(id: result.id, dropped: result.dropped) }
}
