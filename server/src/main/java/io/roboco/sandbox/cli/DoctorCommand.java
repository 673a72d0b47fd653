package io.roboco.sandbox.cli;

import io.roboco.sandbox.server.Production;
import io.roboco.sandbox.server.health.Doctor;
import io.roboco.sandbox.server.health.DoctorCheck;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code doctor}: asks the running server ({@code GET /api/doctor}); with none running, checks this machine itself
 * (Docker, the images and their recipes, the state dir, the store, the tokens, the flag, the limits). The embedded
 * store is locked by a running server, which is why the server is asked first. Exit 0 when no check fails, 1 otherwise.
 */
@Command(
        name = "doctor",
        mixinStandardHelpOptions = true,
        description = {
            "Health checks, each ok / warn / fail with a fix; exit 1 when any fails.",
            "Example: roboco-sandbox doctor --json"
        })
final class DoctorCommand implements Callable<Integer> {
    @Mixin
    ServerClient server;

    @Spec
    CommandSpec spec;

    @Override
    @SuppressWarnings("unchecked")
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Map<String, Object> report;
        String source;
        if (server.reachable()) {
            ServerClient.Reply reply = server.send("GET", "/api/doctor", null);
            if (!reply.ok()) {
                spec.commandLine()
                        .getErr()
                        .println("roboco-sandbox doctor: the server at " + server.base() + " refused: "
                                + reply.message());
                return 1;
            }
            report = reply.map();
            source = "the server at " + server.base();
        } else {
            List<DoctorCheck> checks = Production.checkMachine(server.env);
            report = Doctor.toJson(checks);
            source = "this machine (no server answers at " + server.base() + ")";
        }
        boolean ok = Boolean.TRUE.equals(report.get("ok"));
        if (server.json) {
            out.println(ServerClient.json(report));
        } else {
            out.println("doctor: " + source);
            Table t = new Table("CHECK", "STATUS", "DETAIL", "FIX");
            for (Object o : (List<Object>) report.get("checks")) {
                Map<String, Object> c = (Map<String, Object>) o;
                t.row(c.get("name"), c.get("status"), c.get("detail"), c.get("fix"));
            }
            t.print(out);
            out.println(ok ? "all checks pass" : "some checks FAIL");
        }
        out.flush();
        return ok ? 0 : 1;
    }
}
