package io.roboco.sandbox.cli;

import io.roboco.sandbox.request.SandboxId;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code delete <id>}: removes one sandbox's containers and marks it deleted (DELETE /api/sandboxes/{id}). */
@Command(
        name = "delete",
        mixinStandardHelpOptions = true,
        description = {
            "Delete one sandbox (its containers are removed).",
            "Example: roboco-sandbox delete sbx_5f0c1a2b3c4d5e6f7a8b"
        })
final class DeleteCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "ID", description = "the sandbox id (sbx_…), as list shows it")
    String id;

    @Override
    public Integer call() {
        if (!SandboxId.isValid(id)) {
            spec.commandLine()
                    .getErr()
                    .println("roboco-sandbox delete: '" + id + "' is not a sandbox id (sbx_ and hex digits; see list)");
            return 2;
        }
        ServerClient.Reply reply = server.send("DELETE", "/api/sandboxes/" + id, null);
        PrintWriter out = spec.commandLine().getOut();
        if (!reply.ok()) {
            spec.commandLine().getErr().println("roboco-sandbox delete: " + reply.message());
            return 1;
        }
        Map<String, Object> body = reply.map();
        out.println(
                server.json
                        ? ServerClient.json(body)
                        : Boolean.TRUE.equals(body.get("deleted"))
                                ? "deleted " + id + " (its containers are removed)"
                                : id + " was already deleted");
        out.flush();
        return 0;
    }
}
