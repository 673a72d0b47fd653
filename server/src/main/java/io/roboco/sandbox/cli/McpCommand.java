package io.roboco.sandbox.cli;

import io.roboco.sandbox.server.SandboxServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code mcp}: MCP on stdio for an agent's client, bridged to the running server's /mcp (ROBOCO_SANDBOX_URL, ROBOCO_SANDBOX_MCP_TOKEN). */
@Command(
        name = "mcp",
        mixinStandardHelpOptions = true,
        description = {
            "MCP on stdin/stdout, bridged to the running server's /mcp.",
            "Example: ROBOCO_SANDBOX_MCP_TOKEN=<agent token> roboco-sandbox mcp"
        })
final class McpCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return SandboxServer.mcpBridge();
    }
}
