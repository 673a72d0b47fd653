package io.roboco.sandbox.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cleanup}: removes this server's expired sandboxes now (or previews them with {@code --dry-run}); with
 * {@code --foreign --older-than 1h}, other instances' leftover containers (see docs/operations.md for how a live
 * instance is told apart; {@code --force} also takes those of instances whose liveness is unknown).
 */
@Command(
        name = "cleanup",
        mixinStandardHelpOptions = true,
        description = {
            "Remove expired sandboxes now; --dry-run previews.",
            "Examples: roboco-sandbox cleanup --dry-run",
            "          roboco-sandbox cleanup --foreign --older-than 1h --dry-run"
        })
final class CleanupCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Option(names = "--dry-run", description = "name what would be removed; remove nothing")
    boolean dryRun;

    @Option(names = "--owner", description = "only this owner's expired sandboxes")
    String owner;

    @Option(
            names = "--foreign",
            description = "other instances' containers (labelled roboco.sandbox=1), not this server's records")
    boolean foreign;

    @Option(
            names = "--older-than",
            paramLabel = "DURATION",
            description = "with --foreign: only containers at least this old, e.g. 1h")
    String olderThan;

    @Option(
            names = "--force",
            description = "with --foreign: also remove containers of instances with no heartbeat in the store")
    boolean force;

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() {
        if (foreign && (olderThan == null || olderThan.isBlank())) {
            spec.commandLine()
                    .getErr()
                    .println("roboco-sandbox cleanup: --foreign needs --older-than, e.g. --older-than 1h");
            return 2;
        }
        if (!foreign && (olderThan != null || force)) {
            spec.commandLine().getErr().println("roboco-sandbox cleanup: --older-than and --force go with --foreign");
            return 2;
        }
        List<String> fields = new ArrayList<>();
        fields.add("\"dry_run\":" + dryRun);
        if (foreign) {
            fields.add("\"foreign\":true");
            fields.add("\"older_than\":" + ServerClient.quote(olderThan));
            fields.add("\"force\":" + force);
        } else if (owner != null) {
            fields.add("\"owner\":" + ServerClient.quote(owner));
        }
        ServerClient.Reply reply = server.send("POST", "/api/sandboxes/cleanup", "{" + String.join(",", fields) + "}");
        PrintWriter out = spec.commandLine().getOut();
        if (!reply.ok()) {
            spec.commandLine().getErr().println("roboco-sandbox cleanup: " + reply.message());
            return reply.status() == 400 ? 2 : 1;
        }
        Map<String, Object> body = reply.map();
        if (server.json) {
            out.println(ServerClient.json(body));
        } else if (foreign) {
            Table t = new Table("CONTAINER", "NAME", "INSTANCE", "INSTANCE STATE", "AGE", "ACTION");
            for (Object o : (List<Object>) body.get("foreign")) {
                Map<String, Object> f = (Map<String, Object>) o;
                String id = String.valueOf(f.get("container_id"));
                t.row(
                        id.length() > 12 ? id.substring(0, 12) : id,
                        f.get("container_name"),
                        f.get("instance"),
                        f.get("instance_state"),
                        ListCommand.human(((Number) f.get("age_seconds")).longValue()),
                        f.get("action"));
            }
            t.print(out);
        } else {
            List<Object> expired = (List<Object>) body.get("expired");
            Table t = new Table("ID", "OWNER", "NAME", "PROJECT", "EXPIRED", dryRun ? "WOULD REMOVE" : "REMOVED");
            List<Object> removed = (List<Object>) body.get("removed");
            for (Object o : expired) {
                Map<String, Object> s = (Map<String, Object>) o;
                t.row(
                        s.get("id"),
                        s.get("owner"),
                        s.get("name"),
                        s.get("project"),
                        s.get("expires"),
                        dryRun ? "yes" : removed.contains(s.get("id")) ? "yes" : "no");
            }
            t.print(out);
            out.println(
                    dryRun
                            ? expired.size() + " expired sandbox(es) would be removed (dry run: nothing removed)"
                            : removed.size() + " expired sandbox(es) removed");
        }
        out.flush();
        return 0;
    }
}
