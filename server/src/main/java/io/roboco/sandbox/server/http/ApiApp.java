package io.roboco.sandbox.server.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.roboco.sandbox.limits.BodyLimitFilter;
import io.roboco.sandbox.limits.BodyTooLarge;
import io.roboco.sandbox.plugin.OrchestratorHandle;
import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.server.config.EdgeSettings;
import io.roboco.sandbox.web.Access;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import java.util.Map;
import java.util.function.Consumer;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Javalin application: auth, routes, and errors as JSON. No request body, envelope or
 * exception message is ever logged; a fault answers 500 with a generic message and is logged by
 * exception class only.
 */
public final class ApiApp {
    private static final Logger log = LoggerFactory.getLogger(ApiApp.class);
    private static final String ANSWERED = "roboco.answered";
    static final String OPENAPI_PATH = "/api/openapi.json";

    private ApiApp() {}

    /**
     * {@code servlets} adds what runs beside Javalin in its servlet context (the MCP endpoint at /mcp). In front of
     * everything, Javalin's routes, the dashboard and /mcp alike, a {@link BodyLimitFilter} bounds every request body.
     */
    public static Javalin create(
            TokenAuth auth,
            OrchestratorHandle lifecycle,
            EdgeSettings edge,
            AdminRoutes admin,
            AgentRoutes agents,
            SandboxRoutes sandboxes,
            ClientRoutes clients,
            OpsRoutes ops,
            Consumer<ServletContextHandler> servlets) {
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            config.http.defaultContentType = "application/json";
            config.http.maxRequestSize = Math.max(edge.maxBody(), edge.maxFormBody());
            config.jetty.modifyServletContextHandler(handler -> {
                FilterHolder bodies = new FilterHolder(new BodyLimitFilter(edge.maxBody(), edge.maxFormBody()));
                bodies.setAsyncSupported(true);
                handler.addFilter(bodies, "/*", EnumSet.of(DispatcherType.REQUEST));
                servlets.accept(handler);
            });
        });
        app.get(
                "/healthz",
                ctx -> Json.write(
                        ctx,
                        200,
                        Map.of("status", "ok", "state", lifecycle.state().name().toLowerCase())),
                Access.ANYONE);
        app.get(
                OPENAPI_PATH,
                ctx -> ctx.status(200).contentType("application/json").result(OpenApi.json()),
                Access.ANYONE);
        app.before("/api/*", ctx -> {
            if (ctx.path().equals(OPENAPI_PATH)) {
                return; // the schema, no secret: a client generator reads it without a token
            }
            String client = auth.check(ctx.method().name(), ctx.path(), ctx.header("Authorization"));
            if (client != null) {
                ClientScope.mark(ctx, client);
            }
        });
        admin.register(app);
        agents.register(app);
        sandboxes.register(app);
        clients.register(app);
        ops.register(app);

        app.exception(ApiError.class, (e, ctx) -> answer(ctx, e.status(), e.code(), e.getMessage()));
        app.exception(BadRequest.class, (e, ctx) -> answer(ctx, 400, "bad_request", e.getMessage()));
        app.exception(
                BodyTooLarge.class,
                (e, ctx) -> answer(
                        ctx,
                        413,
                        "too_large",
                        "the request body is larger than " + e.limit()
                                + " bytes, the most this server accepts (ROBOCO_SANDBOX_MAX_BODY; forms ROBOCO_SANDBOX_MAX_FORM_BODY); send a smaller one"));
        app.exception(
                HttpResponseException.class,
                (e, ctx) -> answer(
                        ctx,
                        e.getStatus(),
                        e.getStatus() == 404 ? "not_found" : "http_" + e.getStatus(),
                        e.getStatus() == 404 ? "no such route" : "request failed"));
        app.exception(Exception.class, (e, ctx) -> {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.error("unhandled {} on {} {}", e.getClass().getName(), ctx.method(), ctx.matchedPath());
            answer(ctx, 500, "internal", "internal error; the server log has the exception class");
        });
        app.error(404, ctx -> {
            if (ctx.attribute(ANSWERED) == null) {
                answer(ctx, 404, "not_found", "no such route");
            }
        });
        app.error(405, ctx -> {
            if (ctx.attribute(ANSWERED) == null) {
                answer(ctx, 405, "method_not_allowed", "method not allowed on this route");
            }
        });
        return app;
    }

    private static void answer(Context ctx, int status, String code, String message) {
        ctx.attribute(ANSWERED, Boolean.TRUE);
        Json.write(ctx, status, Json.error(code, message));
    }
}
