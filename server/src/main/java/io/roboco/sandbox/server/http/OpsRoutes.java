package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.roboco.sandbox.server.health.Doctor;
import io.roboco.sandbox.server.health.DoctorCheck;
import io.roboco.sandbox.server.health.SandboxMetrics;
import io.roboco.sandbox.web.Access;
import java.util.List;
import java.util.function.Supplier;

/** {@code GET /api/doctor} (admin: health checks with fixes) and {@code GET /metrics} (anyone: Prometheus text, counts only). */
public final class OpsRoutes {
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final Supplier<Doctor> doctor;
    private final SandboxMetrics metrics;

    public OpsRoutes(Supplier<Doctor> doctor, SandboxMetrics metrics) {
        this.doctor = doctor;
        this.metrics = metrics;
    }

    void register(Javalin app) {
        app.get("/api/doctor", ctx -> {
            List<DoctorCheck> checks = doctor.get().run();
            Json.write(ctx, 200, Doctor.toJson(checks));
        });
        app.get(
                "/metrics",
                ctx -> ctx.status(200).contentType(PROMETHEUS_TEXT).result(metrics.scrape()),
                Access.ANYONE);
    }
}
