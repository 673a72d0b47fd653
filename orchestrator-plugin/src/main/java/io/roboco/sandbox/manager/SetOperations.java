package io.roboco.sandbox.manager;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.pool.WarmPool;
import io.roboco.sandbox.provision.ProvisionException;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServicePlan;
import io.roboco.sandbox.provision.ServiceProvisioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The per-service work on one agent's set, fanned out in parallel: start (or claim from the warm
 * pool) all of it — all or nothing —, check all of it live, remove all of it. No locks here; the
 * manager serializes calls per agent.
 */
final class SetOperations implements AutoCloseable {
    private final EngineRegistry registry;
    private final ServiceProvisioner provisioner;
    private final WarmPool pool;
    private final ExecutorService workers = Executors.newCachedThreadPool(daemonThreads("sandbox-worker-"));
    /** Starts and claims under way on the workers, counted until each has its container handed on or removed. */
    private final ActiveCalls starts = new ActiveCalls();

    SetOperations(EngineRegistry registry, ServiceProvisioner provisioner, WarmPool pool) {
        this.registry = registry;
        this.provisioner = provisioner;
        this.pool = pool;
    }

    ExecutorService workers() {
        return workers;
    }

    /**
     * Readies every service in {@code services} at once: a warm-pool claim when one is available,
     * else a cold start. If any fails, the others are removed and one exception names every failure
     * (retryable only if all were).
     *
     * @param ready told each container id as soon as it is ready, before its siblings finish
     * @param coldStarts counts the services that were started cold (not claimed from the pool)
     */
    Map<String, ServiceInstance> startAll(
            SandboxRequest request, List<String> services, Consumer<String> ready, AtomicInteger coldStarts)
            throws ProvisionException, InterruptedException {
        Map<String, CompletableFuture<ServiceInstance>> futures = new LinkedHashMap<>();
        // The set's clearly slowest engine (measured) starts first; the others wait for its runtime start.
        Optional<String> first = provisioner.firstOf(services);
        CountDownLatch firstStarted = new CountDownLatch(first.isPresent() ? 1 : 0);
        for (String service : ordered(services, first)) {
            boolean isFirst = first.isPresent() && first.get().equals(service);
            ServicePlan plan = request.plan(service);
            starts.enterAnyway();
            CompletableFuture<ServiceInstance> start;
            try {
                start = CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                ServiceInstance instance = pool == null
                                        ? null
                                        : pool.claim(plan, request.agent(), poolProject(plan, request))
                                                .orElse(null);
                                if (instance == null) {
                                    coldStarts.incrementAndGet();
                                    instance = provisioner.provision(
                                            plan, request.agent(), request.projectId(), firstStarted, isFirst);
                                }
                                ready.accept(instance.containerId());
                                return instance;
                            } catch (ProvisionException e) {
                                throw new CompletionException(e);
                            } finally {
                                if (isFirst) {
                                    firstStarted.countDown(); // claimed, started or failed: its siblings go on
                                }
                            }
                        },
                        workers);
            } catch (RuntimeException e) {
                starts.exit();
                throw e;
            }
            futures.put(service, start);
        }
        Map<String, ServiceInstance> started = new TreeMap<>();
        List<ProvisionException> failures = new ArrayList<>();
        try {
            collect(futures, started, failures);
        } catch (InterruptedException e) {
            // Siblings still starting finish on their own; whatever they made is removed when they do, and only then
            // do they stop counting as starts under way.
            futures.values()
                    .forEach(other -> other.whenComplete((instance, failure) -> {
                        try {
                            if (instance != null) {
                                provisioner.removeQuietly(instance.containerId());
                            }
                        } finally {
                            starts.exit();
                        }
                    }));
            throw e;
        }
        // Every start has ended (each future was waited for): its container is handed on below, or removed.
        futures.values().forEach(f -> starts.exit());
        if (!failures.isEmpty()) {
            removeAll(
                    started.values().stream().map(ServiceInstance::containerId).toList());
            String reason = String.join(
                    "; ", failures.stream().map(Throwable::getMessage).toList());
            boolean retryable = failures.stream().allMatch(ProvisionException::retryable);
            throw new ProvisionException(
                    reason,
                    retryable,
                    null,
                    failures.stream()
                            .flatMap(f -> f.queue().stream())
                            .findFirst()
                            .orElse(null));
        }
        return started;
    }

    /** {@code services} with the set's first (its clearly slowest engine) first, so its task is submitted first. */
    private static List<String> ordered(List<String> services, Optional<String> first) {
        if (first.isEmpty() || !services.contains(first.get())) {
            return services;
        }
        List<String> ordered = new ArrayList<>(services.size());
        ordered.add(first.get());
        services.stream().filter(s -> !s.equals(first.get())).forEach(ordered::add);
        return ordered;
    }

    private void collect(
            Map<String, CompletableFuture<ServiceInstance>> futures,
            Map<String, ServiceInstance> started,
            List<ProvisionException> failures)
            throws InterruptedException {
        for (Map.Entry<String, CompletableFuture<ServiceInstance>> f : futures.entrySet()) {
            try {
                started.put(f.getKey(), f.getValue().get());
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                failures.add(
                        cause instanceof ProvisionException pe
                                ? pe
                                : new ProvisionException(f.getKey() + " provisioning failed: " + cause, true, cause));
            }
        }
    }

    /** Waits up to {@code timeout} for the starts and claims under way on the workers; returns how many still are. */
    int awaitStarts(Duration timeout) throws InterruptedException {
        return starts.awaitNone(timeout);
    }

    /** Whether every service runs and answers on its agent credential; checked in parallel. */
    boolean allLive(Collection<ServiceInstance> instances) throws InterruptedException {
        if (instances.size() == 1) {
            ServiceInstance only = instances.iterator().next();
            return provisioner.isLive(registry.require(only.service()), only);
        }
        List<CompletableFuture<Boolean>> checks = instances.stream()
                .map(i -> CompletableFuture.supplyAsync(
                        () -> provisioner.isLive(registry.require(i.service()), i), workers))
                .toList();
        boolean all = true;
        for (CompletableFuture<Boolean> check : checks) {
            all &= join(check);
        }
        return all;
    }

    /** Removes the containers in parallel; never throws for a container (removal is best-effort, the janitor retries). */
    void removeAll(Collection<String> ids) throws InterruptedException {
        if (ids.size() <= 1) {
            ids.forEach(provisioner::removeQuietly);
            return;
        }
        List<CompletableFuture<Void>> removals = ids.stream()
                .map(id -> CompletableFuture.runAsync(() -> provisioner.removeQuietly(id), workers))
                .toList();
        for (CompletableFuture<Void> removal : removals) {
            join(removal);
        }
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }

    private static <T> T join(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The project whose seeded pool a plan may claim from: none for a one-off template ({@code request_sandbox(template=…)}),
     * which starts cold rather than discarding the project's own seeded pool.
     */
    private static String poolProject(ServicePlan plan, SandboxRequest request) {
        return plan.seed() instanceof Seed.Template t && t.oneOff() ? null : request.projectId();
    }
}
