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
