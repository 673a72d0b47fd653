package io.roboco.sandbox.cli;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code list}: the server's sandboxes (GET /api/sandboxes), filtered like the API. Never credentials. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "List sandboxes: id, owner, name, project, state, expiry, services, labels.",
            "Example: roboco-sandbox list --owner dev-1 --label task=T-7 --state all"
        })
final class ListCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Option(names = "--owner", description = "only this owner's (an agent slug or a CI job name)")
    String owner;

    @Option(names = "--project", description = "only this project's")
    String project;

    @Option(
            names = "--label",
            paramLabel = "KEY=VALUE",
            description = "only those with this label (repeatable; all must match)")
    List<String> labels = new ArrayList<>();

    @Option(names = "--state", defaultValue = "live", description = "live (default), expired, deleted or all")
    String state;

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() {
        List<String> query = new ArrayList<>();
        add(query, "owner", owner);
        add(query, "project", project);
        labels.forEach(l -> add(query, "label", l));
        add(query, "state", state);
        ServerClient.Reply reply =
                server.send("GET", "/api/sandboxes" + (query.isEmpty() ? "" : "?" + String.join("&", query)), null);
        PrintWriter out = spec.commandLine().getOut();
        if (!reply.ok()) {
            spec.commandLine().getErr().println("roboco-sandbox list: " + reply.message());
            return 1;
        }
        Map<String, Object> body = reply.map();
        if (server.json) {
            out.println(ServerClient.json(body));
            out.flush();
            return 0;
        }
        Table t = new Table("ID", "OWNER", "NAME", "PROJECT", "STATE", "EXPIRES IN", "SERVICES", "LABELS");
        for (Object o : (List<Object>) body.get("sandboxes")) {
            Map<String, Object> s = (Map<String, Object>) o;
            long left = ((Number) s.get("expires_in_seconds")).longValue();
            t.row(
                    s.get("id"),
                    s.get("owner"),
                    s.get("name"),
                    s.get("project"),
                    s.get("state"),
                    left <= 0 ? "-" : human(left),
                    String.join(",", (List<String>) s.get("services")),
                    labels((Map<String, Object>) s.get("labels")));
        }
        t.print(out);
        Map<String, Object> capacity = (Map<String, Object>) body.get("capacity");
        out.println("capacity: " + capacity.get("used") + " of "
                + (capacity.get("max") == null ? "unlimited" : capacity.get("max")) + " sandbox containers live");
        out.flush();
        return 0;
    }

    private static void add(List<String> query, String key, String value) {
        if (value != null && !value.isBlank()) {
            query.add(key + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    private static String labels(Map<String, Object> labels) {
        List<String> parts = new ArrayList<>();
        labels.forEach((k, v) -> parts.add(k + "=" + v));
        return String.join(",", parts);
    }

    static String human(long seconds) {
        if (seconds < 120) {
            return seconds + "s";
        }
        if (seconds < 7200) {
            return seconds / 60 + "m";
        }
        if (seconds < 172_800) {
            return seconds / 3600 + "h" + (seconds % 3600 / 60 == 0 ? "" : seconds % 3600 / 60 + "m");
        }
        return seconds / 86_400 + "d";
    }
}
