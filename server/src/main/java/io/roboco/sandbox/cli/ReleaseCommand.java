package io.roboco.sandbox.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code release <agent>}: tears an agent's request_sandbox set down (POST /api/sandboxes/release). */
@Command(
        name = "release",
        mixinStandardHelpOptions = true,
        description = {
            "Release one agent's request_sandbox set; its next call gets a fresh one.",
            "Example: roboco-sandbox release dev-1"
        })
final class ReleaseCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "AGENT", description = "the agent's slug")
    String agent;

    @Override
    public Integer call() {
        ServerClient.Reply reply =
                server.send("POST", "/api/sandboxes/release", "{\"agent\":" + ServerClient.quote(agent) + "}");
        PrintWriter out = spec.commandLine().getOut();
        if (!reply.ok()) {
            spec.commandLine().getErr().println("roboco-sandbox release: " + reply.message());
            return reply.status() == 400 ? 2 : 1;
        }
        Map<String, Object> body = reply.map();
        out.println(
                server.json
                        ? ServerClient.json(body)
                        : "released " + agent + ": " + body.get("removed") + " container(s) removed");
        out.flush();
        return 0;
    }
}
