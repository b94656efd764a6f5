#if canImport(SwiftUI)
    import LogbookData
    import SwiftUI

    /// The conversation as the app shows it: its 50 newest messages, redrawn when a commit
    /// (a send on this device, a sync from the other) changes them. Compiled on Apple
    /// platforms only; the story in main.swift reads the same query with `observe`.
    struct ConversationView: View {
        @State private var newest: LiveQuery<Message>

        init(device: Device, conversation: String) {
            _newest = State(
                initialValue: LiveQuery(
                    device.logbook, device.timeline, .equal(.string(conversation)),
                    order: .descending, limit: 50))
        }

        var body: some View {
            List(newest.models) { message in
                VStack(alignment: .leading) {
                    Text(message.author).font(.caption).foregroundStyle(.secondary)
                    Text(message.text)
                    ForEach(message.toolCalls, id: \.name) { call in
                        Label(call.name, systemImage: "wrench.and.screwdriver").font(.caption)
                    }
                }
            }
        }
    }
#endif
