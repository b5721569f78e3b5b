import ObjectGraph

extension RecipeShell {
    /// `.watch fetch ENTITY [where P] [sort K, …] [limit N] …`: keeps a live view of the
    /// fetch and prints its changes as they happen (see ``ResultsWatch``); a second `.watch`
    /// replaces the first. `.watch off` stops it; `.watch` alone says what is watched.
    func watch(_ text: String, _ context: CommandContext) throws {
        let (word, rest) = Self.firstWord(of: text)
        switch word.lowercased() {
        case "":
            guard let watch else {
                context.print("no watch (.watch fetch ENTITY [where …] [sort …] [limit N] starts one)")
                return
            }
            context.print("watching \(watch.command): \(Self.objects(watch.count, watch.controller))")
        case "off":
            guard rest.isEmpty else { throw CommandError(".watch off takes nothing after it") }
            guard watch != nil else { throw CommandError("no watch is running") }
            watch = nil
            context.print("stopped watching")
        case "fetch":
            let command = try fetchCommand(from: rest, command: "fetch")
            guard command.result == .objects else {
                throw CommandError(".watch shows objects: 'ids' and 'keys' do not go with it")
            }
            // The running watch goes only once the new one has fetched: a request the fetch
            // refuses (an unknown key in the predicate or a sort key) leaves it running.
            let started = try ResultsWatch(text.trimmed, request: command.request, context: self.context,
                                           commandContext: context) { [unowned self] in runningCommands > 0 }
            let replaces = watch != nil
            watch = started
            context.print("watching \(Self.objects(started.count, started.controller))"
                          + (replaces ? ", instead of the previous watch" : "") + " (.watch off stops it)")
        default:
            throw CommandError(".watch takes a fetch command (.watch fetch Recipe where rating > 4 sort name), or off")
        }
    }

    /// `3 Recipe objects`.
    private static func objects(_ count: Int, _ controller: FetchedResultsController) -> String {
        "\(count) \(controller.fetchRequest.entityName) object\(count == 1 ? "" : "s")"
    }
}
