import Foundation
import Testing
@testable import ObjectGraph
@testable import ObjectGraphSQLite

/// With ``ConfinementChecks`` on, an object smuggled out of its context stops the program
/// with a message; used where it belongs, nothing happens.
struct ConfinementTests {
    /// Carries an object across isolation, as buggy code would.
    // Unsafe on purpose: this is the misuse the checks exist to catch.
    struct Smuggled: @unchecked Sendable { let object: ManagedObject }

    @Test("An object of a private context used outside it stops the program")
    func privateContextObjectUsedOutside() async {
        await #expect(processExitsWith: .failure) {
            ConfinementChecks.isEnabled = true
            let coordinator = try! TestModel.coordinator()
            let context = PrivateContext(coordinator: coordinator)
            let smuggled = try! await context.perform { context in Smuggled(object: try context.insert("Chef")) }
            smuggled.object["name"] = "Ana"  // not on the context's queue
        }
    }

    @Test("OBJECTGRAPH_CONCURRENCY_DEBUG=1 in the environment turns the checks on when the first context is made")
    func environmentTurnsChecksOn() async {
        await #expect(processExitsWith: .failure) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            let coordinator = try! TestModel.coordinator()
            let context = PrivateContext(coordinator: coordinator)
            let smuggled = try! await context.perform { context in Smuggled(object: try context.insert("Chef")) }
            smuggled.object["name"] = "Ana"
        }
        await #expect(processExitsWith: .success) {
            setenv("OBJECTGRAPH_CONCURRENCY_DEBUG", "1", 1)
            ConfinementChecks.isEnabled = false  // the code's choice wins over the environment
            let coordinator = try! TestModel.coordinator()
            let context = PrivateContext(coordinator: coordinator)
            let smuggled = try! await context.perform { context in Smuggled(object: try context.insert("Chef")) }
            smuggled.object["name"] = "Ana"
            exit(ConfinementChecks.isEnabled ? 1 : 0)
        }
    }

    @Test("An object of the main context used on another thread stops the program")
    func mainContextObjectUsedOnAnotherThread() async {
        await #expect(processExitsWith: .failure) {
            ConfinementChecks.isEnabled = true
            let smuggled = await MainActor.run {
                let context = MainContext(coordinator: try! TestModel.coordinator())
                let chef = try! context.insert("Chef")
                return (Smuggled(object: chef), context)
            }
            let thread = Thread { _ = smuggled.0.object["name"] }
            thread.start()
            while true { sleep(1) }
        }
    }

    @Test("Objects used where they belong pass the checks")
    func objectsUsedWhereTheyBelong() async {
        await #expect(processExitsWith: .success) {
            ConfinementChecks.isEnabled = true
            let coordinator = try! TestModel.coordinator()
            let context = PrivateContext(coordinator: coordinator)
            try! await context.perform { context in
                let chef = try context.insert("Chef")
                chef["name"] = "Ana"
                try context.save()
            }
            let name = context.performAndWait { context in
                (try? context.fetch(FetchRequest(entityName: "Chef")).first?["name"]) as? String
            }
            await MainActor.run {
                let main = MainContext(coordinator: coordinator)
                _ = try! main.fetch(FetchRequest(entityName: "Chef")).first?["name"]
            }
            exit(name == "Ana" ? 0 : 1)
        }
    }

    /// A saved chef, its recipe and a tag of the recipe, carried out of the private context
    /// that fetched them (the chef a fault again); the context comes too, so they stay registered.
    static func smuggledObjects() async -> (chef: Smuggled, recipe: Smuggled, tag: Smuggled, context: PrivateContext) {
        ConfinementChecks.isEnabled = true
        let context = PrivateContext(coordinator: try! TestModel.coordinator())
        let (chef, recipe, tag) = try! await context.perform { context in
            let chef = try context.insert("Chef")
            chef["name"] = "Ana"
            let recipe = try context.insert("Recipe")
            recipe["name"] = "Soup"
            recipe["chef"] = chef
            let tag = try context.insert("Tag")
            tag["label"] = "quick"
            try context.save()
            context.refresh(chef, mergeChanges: false)
            return (Smuggled(object: chef), Smuggled(object: recipe), Smuggled(object: tag))
        }
        return (chef, recipe, tag, context)
    }

    /// What an exit test wrote to standard error.
    static func standardError(_ result: ExitTest.Result?) -> String {
        result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
    }

    @Test("Each kind of access to a private context's object outside perform stops the program, naming the use, the object and the context")
    func everyAccessIsChecked() async {
        let toMany = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let smuggled = await ConfinementTests.smuggledObjects()
            _ = smuggled.chef.object["recipes"]
        }
        let message = Self.standardError(toMany)
        #expect(message.contains("ObjectGraph concurrency violation: reading 'recipes' of Chef/p1 on thread"), "\(message)")
        #expect(message.contains("belongs to PrivateContext #"), "\(message)")
        #expect(message.contains("inside its context's perform"), "\(message)")

        let setting = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let smuggled = await ConfinementTests.smuggledObjects()
            smuggled.recipe.object["name"] = "Stew"
        }
        #expect(Self.standardError(setting).contains("setting 'name' of Recipe/p1"), "\(Self.standardError(setting))")

        let adding = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let smuggled = await ConfinementTests.smuggledObjects()
            try? smuggled.recipe.object.add(smuggled.tag.object, toKey: "tags")  // many-to-many: no to-one on the way
        }
        #expect(Self.standardError(adding).contains("adding to 'tags' of Recipe/p1"), "\(Self.standardError(adding))")

        let fulfilling = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let smuggled = await ConfinementTests.smuggledObjects()
            try? smuggled.chef.object.fulfill()
        }
        #expect(Self.standardError(fulfilling).contains("fulfill() of Chef/p1"), "\(Self.standardError(fulfilling))")

        let changes = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let smuggled = await ConfinementTests.smuggledObjects()
            _ = smuggled.recipe.object.changedValues()
        }
        #expect(Self.standardError(changes).contains("changedValues() of Recipe/p1"), "\(Self.standardError(changes))")
    }

    @Test("The message tells two private contexts apart: it names the context by number and name, and its queue")
    func messageNamesTheContext() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            ConfinementChecks.isEnabled = true
            let coordinator = try! TestModel.coordinator()
            let reader = PrivateContext(coordinator: coordinator)
            let importer = PrivateContext(coordinator: coordinator, name: "importer")
            FileHandle.standardError.write(Data("importer: \(importer)\n".utf8))
            let smuggled = try! await importer.perform { context in Smuggled(object: try context.insert("Chef")) }
            await reader.perform { _ in smuggled.object["name"] = "Ana" }  // on another context's queue
        }
        let message = Self.standardError(result)
        let importer = try #require(message.firstMatch(of: /importer: (PrivateContext #\d+ "importer")\n/)?.output.1)
        #expect(message.contains("belongs to \(importer) (queue ObjectGraph.\(importer))."), "\(message)")
    }

    @Test("Each private context has its own number, and its name if given, in its description and queue label")
    func descriptions() async throws {
        let coordinator = try TestModel.coordinator()
        let plain = PrivateContext(coordinator: coordinator)
        let importer = PrivateContext(coordinator: coordinator, name: "importer")
        let child = PrivateContext(parent: importer, name: "child")
        let main = await MainContext(coordinator: coordinator)
        let underMain = PrivateContext(parent: main)
        let descriptions = [plain, importer, child, underMain].map(\.description)
        #expect(descriptions.allSatisfy { $0.wholeMatch(of: /PrivateContext #\d+( "\w+")?/) != nil }, "\(descriptions)")
        #expect(Set(descriptions).count == 4, "\(descriptions)")
        #expect(importer.description.hasSuffix(" \"importer\"") && child.description.hasSuffix(" \"child\""))
        #expect(plain.name == nil && importer.name == "importer")
        #expect(importer.executor.label == "ObjectGraph.\(importer)")
        let persist = await MainActor.run { NestedContextStack(coordinator: coordinator).persist }
        #expect(persist.description.hasSuffix(" \"persist\""))
    }

    @Test("A main context has a number, and its name if given, in its description and in the messages that name it")
    @MainActor
    func mainContextDescriptions() async throws {
        let coordinator = try TestModel.coordinator()
        let plain = MainContext(coordinator: coordinator)
        let editor = MainContext(coordinator: coordinator, name: "editor")
        let child = MainContext(parent: editor, name: "child")
        #expect([plain, editor, child].allSatisfy { $0.description.wholeMatch(of: /MainContext #\d+( "\w+")?/) != nil })
        #expect(plain.name == nil && editor.name == "editor" && "\(child)".hasSuffix(" \"child\""))
        #expect(Set([plain, editor, child].map(\.description)).count == 3)
        #expect(NestedContextStack(coordinator: coordinator).main.description.hasSuffix(" \"main\""))
        #expect(SiblingContextStack(coordinator: coordinator).main.name == "main")
        #expect(editor.core.confinement.name == "\(editor) (the main actor)")
    }

    @Test("A main context called off the main actor through MainActor.assumeIsolated is stopped by Swift")
    func mainContextForcedOntoAnotherThread() async {
        await #expect(processExitsWith: .failure) {
            let context = await MainActor.run { MainContext(coordinator: try! TestModel.coordinator()) }
            let thread = Thread { MainActor.assumeIsolated { _ = try? context.count(for: FetchRequest(entityName: "Chef")) } }
            thread.start()
            while true { sleep(1) }
        }
    }

    @Test("With the checks on, IDs cross between contexts and performAndWait nests in perform, in itself and across contexts")
    func idsAndReentrancyPassTheChecks() async {
        await #expect(processExitsWith: .success) {
            alarm(600)  // a deadlock ends the process (a failure) instead of the test run
            ConfinementChecks.isEnabled = true
            let coordinator = try! TestModel.coordinator()
            let importer = PrivateContext(coordinator: coordinator)
            let reader = PrivateContext(coordinator: coordinator)
            let id = try! await importer.perform { context in
                let chef = try context.insert("Chef")
                chef["name"] = "Ana"
                try context.save()
                return chef.objectID
            }
            let onMain = await MainActor.run {
                let main = MainContext(coordinator: coordinator)
                return main.object(with: id)["name"] as? String
            }
            let nested = await reader.perform { context in
                context.performAndWait { again in
                    let own = again.object(with: id)["name"] as? String
                    // Across contexts on one thread: the importer's work calls back into the reader.
                    let across = importer.performAndWait { importer in
                        (importer.object(with: id)["name"] as? String).map { name in
                            name + (reader.performAndWait { $0.object(with: id)["name"] as? String } ?? "?")
                        }
                    }
                    return [own, across]
                }
            }
            exit(onMain == "Ana" && nested == ["Ana", "AnaAna"] ? 0 : 1)
        }
    }

    @Test("performAndWait from the main actor on a private child of the main context stops with a message instead of deadlocking")
    func performAndWaitThatWouldDeadlockTraps() async {
        await #expect(processExitsWith: .failure) {
            await MainActor.run {
                let main = MainContext(coordinator: try! TestModel.coordinator())
                let child = PrivateContext(parent: main)
                _ = child.performAndWait { context in (try? context.count(for: FetchRequest(entityName: "Chef"))) ?? 0 }
            }
        }
    }
}
