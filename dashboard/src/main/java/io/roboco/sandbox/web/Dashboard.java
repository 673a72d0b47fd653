package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.plugin.ActivityHistory;
import io.roboco.sandbox.plugin.ClientTokenIssuer;
import io.roboco.sandbox.plugin.OperatorConsole;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's pages, served by the standalone server next to its JSON API: sign-in, live
 * sandboxes, projects and their Sandbox card, the audit trail and the feature flag.
 *
 * <p>Who may use what (routes under {@code /api/} take bearer tokens instead, see TokenAuth):
 * <pre>
 *   anyone       GET /healthz, GET|POST /login, GET /static/{file}
 *   admin        GET /, /sandboxes, /projects, /projects/{id}, /audit, /flags, /clients
 *   admin + CSRF POST /logout, /projects, /projects/{id}, /flags/ROBOCO_SANDBOX_DB_ENABLED,
 *                /sandboxes/verify, /sandboxes/{agent}/verify, /sandboxes/{agent}/release,
 *                /clients/token, /clients/token/revoke
 * </pre>
 */
public final class Dashboard {
    private static final Logger log = LoggerFactory.getLogger(Dashboard.class);
    /** The verb recorded in the audit trail when an operator releases a sandbox from the Sandboxes page. */
    public static final String RELEASE_VERB = "dashboard_release";

    private Dashboard() {}

    /**
     * Adds the pages to {@code app}.
     *
     * @param activity        the server's last hour, a point per minute (the Sandboxes page's chart), or
     *                        {@link ActivityHistory#NONE}
     * @param clientTokens    what mints and revokes CI jobs' client tokens (the same as the API's routes)
     * @param flagEnvOverride {@code ROBOCO_SANDBOX_DB_ENABLED} from the environment, or null
     * @param adminToken      the token that signs an operator in
     */
    public static void register(
            Javalin app,
            OperatorConsole console,
            ActivityHistory activity,
            ClientTokenIssuer clientTokens,
            Boolean flagEnvOverride,
            String adminToken,
            Clock clock) {
        Sessions sessions = new Sessions(clock);
        Templates templates = new Templates();
        WebGate gate = new WebGate(sessions);
        app.beforeMatched(gate::check);
        app.exception(Denied.class, (e, ctx) -> denied(e, ctx, templates));

        StaticAssets assets = new StaticAssets();
        app.get("/static/{file}", assets::serve, Access.ANYONE);
        new SignInPages(sessions, templates, adminToken).register(app);
        new SandboxPages(console, activity, templates, clock).register(app);
        new ProjectPages(console, templates).register(app);
        new AuditPages(console, templates).register(app);
        new FlagPages(console, flagEnvOverride, templates).register(app);
        new ClientPages(clientTokens, templates).register(app);
        // A browser that mistypes a page address gets a page; /api/ paths and other clients keep the JSON 404.
        app.error(404, "html", ctx -> {
            if (!ctx.path().startsWith("/api/")) {
                notFound(ctx, sessions, templates);
            }
        });
    }

    private static void notFound(Context ctx, Sessions sessions, Templates templates) {
        String id = ctx.cookie(Cookies.SESSION);
        String csrf = id == null
                ? null
                : sessions.find(id).map(Sessions.Session::csrf).orElse(null);
        templates.render(
                ctx,
                404,
                "message.jte",
                Map.of(
                        "page",
                        new Page("Not found", "", csrf, null, false),
                        "heading",
                        "Not found",
                        "text",
                        "There is no page at " + Printable.of(ctx.path()) + "."));
    }

    private static void denied(Denied e, Context ctx, Templates templates) {
        if (e.kind() == Denied.Kind.SIGN_IN) {
            Headers.page(ctx);
            ctx.header("Location", "/login").status(303).result("");
            return;
        }
        if (e.kind() == Denied.Kind.UNDECLARED) {
            log.error("route {} {} declares no Access; refused", ctx.method(), ctx.matchedPath());
        }
        templates.render(
                ctx,
                e.kind().status,
                "message.jte",
                Map.of(
                        "page",
                        new Page(e.kind().title, "", null, null, false),
                        "heading",
                        e.kind().title,
                        "text",
                        e.getMessage()));
    }
}
