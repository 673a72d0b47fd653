package io.roboco.sandbox.cli;

import io.roboco.sandbox.request.Owner;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code client-token <owner>}: mints (or with {@code --revoke} revokes) a CI job's client token
 * ({@code POST / DELETE /api/clients/{owner}/token}). The token alone is printed, so a script can capture it.
 */
@Command(
        name = "client-token",
        mixinStandardHelpOptions = true,
        description = {
            "Mint a client token for an operator-side owner (a CI job): it can create, list, extend and delete only",
            "that owner's sandboxes, under that owner's quota. Minting again replaces the owner's token.",
            "Example: export ROBOCO_SANDBOX_CLIENT_TOKEN=$(roboco-sandbox client-token job:ci-42)",
            "         roboco-sandbox client-token --revoke job:ci-42"
        })
final class ClientTokenCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Option(names = "--revoke", description = "revoke the owner's client token instead of minting one")
    boolean revoke;

    @Parameters(paramLabel = "OWNER", description = "job:<name>, e.g. job:ci-42")
    String owner;

    @Override
    public Integer call() {
        if (!Owner.isJob(owner)) {
            spec.commandLine()
                    .getErr()
                    .println("roboco-sandbox client-token: '" + owner
                            + "' is not an operator-side owner; write job:<name>, e.g. job:ci-42");
            return 2;
        }
        ServerClient.Reply reply = server.send(revoke ? "DELETE" : "POST", "/api/clients/" + owner + "/token", null);
        PrintWriter out = spec.commandLine().getOut();
        if (reply.status() != 200) {
            spec.commandLine().getErr().println("roboco-sandbox client-token: " + reply.message());
            return 1;
        }
        Map<String, Object> body = reply.map();
        if (server.json) {
            out.println(ServerClient.json(body));
        } else if (revoke) {
            out.println(
                    Boolean.TRUE.equals(body.get("revoked"))
                            ? "revoked the client token of " + owner
                            : owner + " had no client token");
        } else {
            out.println(body.get("token"));
        }
        out.flush();
        return 0;
    }
}
