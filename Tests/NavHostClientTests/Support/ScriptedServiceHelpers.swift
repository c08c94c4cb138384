import IntegrationHarness
import NavHostClient

/// Starts a scripted service, connects a client to it, runs `body`, then closes the client and stops the service
/// however `body` ends.
func withScriptedService<Result>(
    _ answers: [String: ScriptedNavigationService.Answer] = [:],
    _ body: (ScriptedNavigationService, NavHostClient) async throws -> Result
) async throws -> Result {
    let service = try await ScriptedNavigationService.start(answers)
    do {
        let client = try await NavHostClient.connect(socketPath: service.socketPath)
        do {
            let result = try await body(service, client)
            await client.close()
            await service.stop()
            return result
        } catch {
            await client.close()
            throw error
        }
    } catch {
        await service.stop()
        throw error
    }
}
