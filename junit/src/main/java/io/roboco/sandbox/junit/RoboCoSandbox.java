package io.roboco.sandbox.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Throwaway databases for a test class: fields and parameters of type {@link PostgresSandbox}, {@link RedisSandbox}
 * and {@link MongoSandbox} are filled with a live sandbox's connection details.
 *
 * <pre>{@code
 * @RoboCoSandbox(project = "shop")
 * class OrderRepositoryTest {
 *     static PostgresSandbox postgres;
 *
 *     @Test
 *     void savesAnOrder(RedisSandbox redis) throws Exception {
 *         try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password())) { … }
 *     }
 * }
 * }</pre>
 *
 * <p>Where the sandboxes come from: with {@code ROBOCO_SANDBOX_URL} set, a RoboCo server, through its lifecycle API
 * ({@code POST /api/sandboxes}, deleted at the end) with the CI job's client token {@code ROBOCO_SANDBOX_CLIENT_TOKEN}
 * (its owner, {@code job:<name>}, and that owner's quota); the TTL is the safety net when the JVM dies. Without it,
 * the local Docker host through the embedded plugin ({@code io.roboco:orchestrator-plugin} on the test classpath).
 * Every setting is read from a system property of the same name first, then the environment.
 *
 * <p>All the sandbox types a class's fields and methods name are one sandbox (one lease), made once for the class
 * ({@link Lifetime#PER_CLASS}, the default) or afresh for every test method ({@link Lifetime#PER_METHOD}; static
 * fields then still share one per class).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RoboCoSandboxExtension.class)
public @interface RoboCoSandbox {
    /** The project the sandboxes belong to (opted in on the server); empty: {@code ROBOCO_SANDBOX_PROJECT}. */
    String project() default "";

    /** How long one lease lives. */
    Lifetime lifetime() default Lifetime.PER_CLASS;

    /** A template of the project the Postgres database starts from (server mode); empty: the project's seed. */
    String template() default "";

    /** A classpath resource of SQL run in the Postgres sandbox once it is leased (needs the PostgreSQL JDBC driver). */
    String seed() default "";

    /** Labels on the sandbox record, {@code key=value} each; the extension adds {@code junit.class}. */
    String[] labels() default {};

    /** The server-side TTL, the safety net if this JVM dies before it releases the sandbox. */
    String ttl() default "30m";

    /** How long one lease lives. */
    enum Lifetime {
        /** One sandbox for the whole class (static and instance fields, every method's parameters). */
        PER_CLASS,
        /** A fresh sandbox for every test method (instance fields and the method's parameters). */
        PER_METHOD
    }
}
