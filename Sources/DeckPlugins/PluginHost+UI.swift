import CDeckPlugin
import DeckUI
import Glibc

/// `deck.ui` and `deck.content` on the host side (deck/ext/ui.h, deck/ext/content.h): arguments
/// are copied and checked here; templates, limits and tokens are the runtime's.
extension PluginHost {
    static var uiExtension: deck_host_ui_t {
        var table = deck_host_ui_t()
        table.set_root = { host, json, outID, dropped in
            PluginHost.uiCall(host, "set_root", outID, dropped) { () throws(PluginCallError) in .setRoot(try PluginHost.template(json)) }
        }
        table.push = { host, json, outID, dropped in
            PluginHost.uiCall(host, "push", outID, dropped) { () throws(PluginCallError) in .push(try PluginHost.template(json)) }
        }
        table.pop = { host in PluginHost.uiCall(host, "pop") { () throws(PluginCallError) in .pop } }
        table.pop_to_root = { host in PluginHost.uiCall(host, "pop_to_root") { () throws(PluginCallError) in .popToRoot } }
        table.present = { host, json, outID in
            PluginHost.uiCall(host, "present", outID) { () throws(PluginCallError) in .present(try PluginHost.template(json)) }
        }
        table.dismiss = { host in PluginHost.uiCall(host, "dismiss") { () throws(PluginCallError) in .dismiss } }
        table.update = { host, id, json, dropped in
            PluginHost.uiCall(host, "update", nil, dropped) { () throws(PluginCallError) in .update(templateID: id, try PluginHost.template(json)) }
        }
        table.complete = { host, token in PluginHost.uiCall(host, "complete") { () throws(PluginCallError) in .complete(token: token) } }
        table.add_image = { host, bytes, size, outID in
            PluginHost.uiCall(host, "add_image", outID) { () throws(PluginCallError) in
                guard let bytes, size > 0 else { throw PluginCallError(status: .invalid, message: "NULL or empty image bytes") }
                guard size <= 16 << 20 else { throw PluginCallError(status: .limit, message: "an image of \(size) bytes is over 16 MiB") }
                return .addImage(Array(UnsafeRawBufferPointer(start: bytes, count: size)))
            }
        }
        table.remove_image = { host, id in PluginHost.uiCall(host, "remove_image") { () throws(PluginCallError) in .removeImage(id) } }
        return table
    }

    static var contentExtension: deck_host_content_t {
        var table = deck_host_content_t()
        table.reload = { host in PluginHost.uiCall(host, "reload") { () throws(PluginCallError) in .reloadContent } }
        table.set_now_playing_ids = { host, ids, count in
            PluginHost.uiCall(host, "set_now_playing_ids") { () throws(PluginCallError) in
                guard count == 0 || ids != nil else { throw PluginCallError(status: .invalid, message: "NULL ids with a count of \(count)") }
                guard count <= 1_000 else { throw PluginCallError(status: .limit, message: "\(count) ids are over the limit of 1000") }
                var list: [String] = []
                for index in 0..<Int(count) {
                    guard let id = try PluginHost.text(ids![index], "id \(index)") else { throw PluginCallError(status: .invalid, message: "id \(index) is NULL") }
                    list.append(id)
                }
                return .nowPlayingContent(list)
            }
        }
        table.complete = { host, token, status in
            PluginHost.uiCall(host, "complete") { () throws(PluginCallError) in .completeContent(token: token, DeckStatus(code: status)) }
        }
        return table
    }

    /// A template's JSON text, copied; NULL and non-UTF-8 are refused.
    private static func template(_ json: UnsafePointer<CChar>?) throws(PluginCallError) -> String {
        guard let json else { throw PluginCallError(status: .invalid, message: "NULL template_json") }
        let length = strnlen(json, TemplateRules.maxBytes + 1)
        guard length <= TemplateRules.maxBytes else {
            throw PluginCallError(status: .limit, message: "template_json is over the limit of \(TemplateRules.maxBytes) bytes")
        }
        return try text(json, "template_json")!
    }

    /// Reads a call's arguments on the loop thread, hands them to the runtime, and writes the
    /// answer's id and dropped count where the plugin asked.
    private static func uiCall(_ host: UnsafePointer<deck_host_t>?, _ name: StaticString, _ outID: UnsafeMutablePointer<UInt64>? = nil,
                               _ dropped: UnsafeMutablePointer<UInt32>? = nil,
                               _ read: () throws(PluginCallError) -> UICall) -> deck_status_t {
        PluginHost.from(host)?.onLoop(name) { owner in
            let call: UICall
            do throws(PluginCallError) {
                call = try read()
            } catch {
                return PluginCallError(status: error.status, message: "\(name): \(error.message)")
            }
            switch owner.actions.ui(owner.instance, call) {
            case .success(let answer):
                outID?.pointee = answer.id
                dropped?.pointee = UInt32(clamping: answer.dropped)
                return nil
            case .failure(let error):
                return PluginCallError(status: error.status, message: "\(name): \(error.message)")
            }
        } ?? DeckStatus.invalid.rawValue
    }
}
