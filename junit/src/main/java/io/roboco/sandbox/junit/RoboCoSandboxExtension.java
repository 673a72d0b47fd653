package io.roboco.sandbox.junit;

import java.lang.annotation.Annotation;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The extension behind {@link RoboCoSandbox}: leases one sandbox per class (or per method) holding every service the
 * class's sandbox fields and parameters name, fills the fields, resolves the parameters, and releases the lease when
 * its JUnit context closes. Leases come from {@link LeaseSource#fromSettings()}, one source per test run.
 */
public final class RoboCoSandboxExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(RoboCoSandboxExtension.class);
    private static final String LEASE = "lease";
    private static final SecureRandom RANDOM = new SecureRandom();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Class<?> testClass = context.getRequiredTestClass();
        RoboCoSandbox settings = settings(testClass);
        List<Field> statics = fields(testClass, true);
        TreeSet<String> services = new TreeSet<>();
        statics.forEach(f -> services.add(Services.of(f.getType())));
        if (settings.lifetime() == RoboCoSandbox.Lifetime.PER_CLASS) {
            fields(testClass, false).forEach(f -> services.add(Services.of(f.getType())));
            for (Method m : methods(testClass)) {
                services.addAll(parameterServices(m));
            }
        } else {
            for (Method m : methods(testClass)) {
                if (Modifier.isStatic(m.getModifiers())) {
                    services.addAll(parameterServices(m)); // @BeforeAll / @AfterAll: the class's lease
                }
            }
        }
        for (var c : testClass.getDeclaredConstructors()) {
            services.addAll(parameterServices(c));
        }
        if (services.isEmpty()) {
            return;
        }
        Lease lease = lease(context, settings, new ArrayList<>(services), null);
        for (Field f : statics) {
            f.setAccessible(true);
            f.set(null, lease.of(f.getType()));
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Class<?> testClass = context.getRequiredTestClass();
        RoboCoSandbox settings = settings(testClass);
        List<Field> instance = fields(testClass, false);
        if (settings.lifetime() == RoboCoSandbox.Lifetime.PER_METHOD) {
            TreeSet<String> services = new TreeSet<>();
            instance.forEach(f -> services.add(Services.of(f.getType())));
            services.addAll(parameterServices(context.getRequiredTestMethod()));
            if (!services.isEmpty()) {
                lease(
                        context,
                        settings,
                        new ArrayList<>(services),
                        context.getRequiredTestMethod().getName());
            }
        }
        if (instance.isEmpty()) {
            return;
        }
        Lease lease = context.getStore(NAMESPACE).get(LEASE, Lease.class);
        for (Object testInstance : context.getRequiredTestInstances().getAllInstances()) {
            for (Field f : fields(testInstance.getClass(), false)) {
                f.setAccessible(true);
                f.set(testInstance, lease.of(f.getType()));
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return Services.isSandbox(parameter.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Lease lease = context.getStore(NAMESPACE).get(LEASE, Lease.class);
        if (lease == null) {
            throw new ExtensionConfigurationException("no sandbox is leased for " + parameter.getDeclaringExecutable()
                    + "; is the class annotated @RoboCoSandbox?");
        }
        return lease.of(parameter.getParameter().getType());
    }

    private static Lease lease(ExtensionContext context, RoboCoSandbox settings, List<String> services, String method)
            throws Exception {
        LeaseSource source = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent("source", k -> new SourceHolder(LeaseSource.fromSettings()), SourceHolder.class)
                .source();
        Class<?> testClass = context.getRequiredTestClass();
        String project = project(settings, source);
        Map<String, String> labels = labels(settings, testClass);
        LeaseRequest request = new LeaseRequest(
                project,
                services,
                name(testClass, method),
                settings.ttl(),
                labels,
                settings.template().isBlank() ? null : settings.template());
        Lease lease = source.lease(request);
        context.getStore(NAMESPACE).put(LEASE, lease);
        if (!settings.seed().isBlank() && services.contains("postgres")) {
            Seeds.run(settings.seed(), (PostgresSandbox) lease.of(PostgresSandbox.class), testClass.getClassLoader());
        }
        return lease;
    }

    private static String project(RoboCoSandbox settings, LeaseSource source) {
        if (!settings.project().isBlank()) {
            return settings.project();
        }
        String fromEnv = Env.setting("ROBOCO_SANDBOX_PROJECT");
        if (fromEnv != null) {
            return fromEnv;
        }
        if (source.defaultProject() != null) {
            return source.defaultProject();
        }
        throw new ExtensionConfigurationException("name the project whose sandboxes " + source.describe()
                + " makes: @RoboCoSandbox(project = \"…\") or ROBOCO_SANDBOX_PROJECT");
    }

    private static Map<String, String> labels(RoboCoSandbox settings, Class<?> testClass) {
        Map<String, String> labels = new TreeMap<>();
        for (String l : settings.labels()) {
            int eq = l.indexOf('=');
            if (eq < 1) {
                throw new ExtensionConfigurationException("label '" + l + "' is not key=value");
            }
            labels.put(l.substring(0, eq), l.substring(eq + 1));
        }
        labels.putIfAbsent("junit.class", clip(testClass.getName().replace('$', '.'), 128));
        return labels;
    }

    /** A name unique among the owner's sandboxes: the class (and method), and random hex. */
    private static String name(Class<?> testClass, String method) {
        byte[] random = new byte[4];
        RANDOM.nextBytes(random);
        String suffix = "-" + HexFormat.of().formatHex(random);
        String base = testClass.getSimpleName() + (method == null ? "" : "." + method);
        base = base.replaceAll("[^A-Za-z0-9_.-]", "-");
        if (base.isEmpty() || !Character.isLetterOrDigit(base.charAt(0))) {
            base = "t" + base;
        }
        return clip(base, 63 - suffix.length()) + suffix;
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    private static RoboCoSandbox settings(Class<?> testClass) {
        for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
            RoboCoSandbox a = c.getAnnotation(RoboCoSandbox.class);
            if (a != null) {
                return a;
            }
        }
        throw new ExtensionConfigurationException(testClass + " uses RoboCoSandboxExtension without @RoboCoSandbox");
    }

    private static List<Field> fields(Class<?> testClass, boolean statics) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Services.isSandbox(f.getType()) && Modifier.isStatic(f.getModifiers()) == statics) {
                    if (Modifier.isFinal(f.getModifiers())) {
                        throw new ExtensionConfigurationException(
                                "sandbox field " + f + " is final; the extension cannot fill it");
                    }
                    out.add(f);
                }
            }
        }
        return out;
    }

    /** The methods JUnit calls (and resolves parameters of): those carrying a JUnit Jupiter annotation. */
    private static List<Method> methods(Class<?> testClass) {
        List<Method> out = new ArrayList<>();
        for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                for (Annotation a : m.getAnnotations()) {
                    if (a.annotationType().getName().startsWith("org.junit.jupiter.")) {
                        out.add(m);
                        break;
                    }
                }
            }
        }
        return out;
    }

    private static List<String> parameterServices(Executable e) {
        List<String> out = new ArrayList<>();
        for (Parameter p : e.getParameters()) {
            if (Services.isSandbox(p.getType())) {
                out.add(Services.of(p.getType()));
            }
        }
        return out;
    }

    /** The run's lease source in the root context's store, closed when the whole run ends. */
    @SuppressWarnings("deprecation")
    private record SourceHolder(LeaseSource source) implements AutoCloseable, ExtensionContext.Store.CloseableResource {
        @Override
        public void close() throws Exception {
            source.close();
        }
    }
}
