package io.roboco.sandbox.lifecycle;

import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.manager.Admission;
import io.roboco.sandbox.manager.AgentSandbox;
import io.roboco.sandbox.manager.LiveSandboxes;
import io.roboco.sandbox.manager.SandboxRequest;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.request.SandboxId;
import io.roboco.sandbox.settings.ContainerRef;
import io.roboco.sandbox.settings.OwnedSandbox;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.settings.Quota;
import io.roboco.sandbox.settings.Reservation;
import io.roboco.sandbox.settings.SandboxQuery;
import io.roboco.sandbox.settings.SandboxRecord;
import io.roboco.sandbox.settings.SandboxStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox records of one server instance: reservations against the quotas (atomic in the store)
 * and the capacity (atomic here), the verb sets' sliding expiry, and the containers of named sandboxes
 * (which no cache holds, so the janitor and the capacity learn of them here).
 *
 * <p>Order of a reservation: the store's quota check and insert (one transaction), then the capacity
 * hold; when the capacity refuses, the record is forgotten again. So an over-quota owner is told so
 * (not retryable) even on a full host, and a refused reservation never leaves a container or a live record.
 */
public final class SandboxBook implements Admission {
    private static final Logger log = LoggerFactory.getLogger(SandboxBook.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** A verb set's expiry is written again once it would slide by more than this share of its TTL. */
    static final int RENEW_FRACTION = 10;

    static final Duration RENEW_SLACK_CAP = Duration.ofMinutes(1);
    /** A TTL from which on the slack is {@link #RENEW_SLACK_CAP} (a hit then skips the division, BigDecimal inside). */
    private static final Duration CAPPED_FROM = RENEW_SLACK_CAP.multipliedBy(RENEW_FRACTION);

    private final SandboxStore store;
    private final String instance;
    private final Lifetimes lifetimes;
    private final int perOwner;
    private final Capacity capacity;
    private final Clock clock;
    private final ContainerLedger ledger;
    /** The sandboxes this process holds, their records as last written and their credentials (shared with the manager). */
    private final LiveSandboxes live;
    /**
     * Sandbox id → how each service's seed reads (the project's {@code sandbox_seed} at admission), from admission until
     * its containers are recorded: each container's record then says what it started with.
     */
    private final Map<String, Map<String, String>> admittedSeeds = new ConcurrentHashMap<>();

    /**
     * @param ledger this process's container ledger: named sandboxes' containers are entered there as {@code RECORDED}
     * @param live   the registry of live sandboxes this book writes their records into (the manager's); made through
     *               {@link Bookkeeping#open}, so the registry is no part of the embedding surface
     */
    SandboxBook(
            SandboxStore store,
            String instance,
            Lifetimes lifetimes,
            int perOwner,
            Capacity capacity,
            Clock clock,
            ContainerLedger ledger,
            LiveSandboxes live) {
        if (perOwner < 1) {
            throw new IllegalArgumentException("ROBOCO_SANDBOX_MAX_PER_OWNER must be at least 1, was " + perOwner);
        }
        this.store = Objects.requireNonNull(store, "store");
        this.instance = Objects.requireNonNull(instance, "instance");
        this.lifetimes = Objects.requireNonNull(lifetimes, "lifetimes");
        this.perOwner = perOwner;
        this.capacity = Objects.requireNonNull(capacity, "capacity");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.live = Objects.requireNonNull(live, "live");
    }

    /**
     * At start without re-adoption ({@code ROBOCO_SANDBOX_READOPT=false}): this instance's verb sets from an earlier
     * process are ended (their containers are orphans for the janitor); its named sandboxes are taken on (their owners
     * hold the credentials), so the janitor leaves their containers alone. Returns how many verb sets were ended.
     * (With re-adoption, {@code readopt.Readoption} checks each record instead.)
     */
    public int reconcileAtStart() {
        Instant now = clock.instant();
        int ended = 0;
        for (SandboxRecord r : store.sandboxes(SandboxQuery.undeletedOf(instance, now))) {
            if (r.kind().endsWithItsProcess()) {
                if (store.markDeleted(
                        r.id(),
                        now,
                        "server restarted: the set's credentials were held by the previous process",
                        false)) {
                    ended++;
                }
            } else {
                takeOnNamed(r);
            }
        }
        if (ended > 0) {
            log.info(
                    "ended {} verb sandbox record(s) of instance {} left by the previous process; the janitor removes their containers",
                    ended,
                    instance);
        }
        return ended;
    }

    /**
     * A named sandbox of this instance that outlives the process that made it (its owner holds the credentials): its
     * containers are recorded, so the janitor leaves them alone and the capacity counts them.
     */
    public void takeOnNamed(SandboxRecord r) {
        r.containers().forEach(c -> ledger.enter(c.containerId(), ContainerLedger.Reason.RECORDED, r.id()));
        live.putRecord(r);
    }

    /** The services of a sandbox of this instance, when this process holds its credentials. */
    public Optional<Map<String, ServiceInstance>> namedServices(String id) {
        return live.services(id);
    }

    // --- verb sets (the manager's admission) -------------------------------------------------

    @Override
    public Decision admit(SandboxRequest request, Map<String, String> labels, AgentSandbox current, int containers) {
        if (current != null) {
            admittedSeeds.put(current.id(), seeds(request.project()));
            return hold(containers, live.record(current.id()).orElse(null), current.id(), current.expires(), null);
        }
        Project project = request.project();
        Lifetimes.Resolved ttl = lifetimes.resolve(project);
        SandboxRecord draft = draft(
                request.agent(),
                project,
                SandboxRecord.DEFAULT_NAME,
                labels,
                project.services(),
                ttl.ttlDefault(),
                ttl);
        Reservation reservation = store.reserve(draft, quotaFor(project));
        if (!(reservation instanceof Reservation.Reserved reserved)) {
            return denial(reservation, request.agent(), project.id());
        }
        admittedSeeds.put(draft.id(), seeds(project));
        return hold(containers, reserved.record(), draft.id(), draft.expires(), draft.id());
    }

    @Override
    public void settled(Decision.Admitted admitted, AgentSandbox entry) {
        admitted.release().run();
        Map<String, String> seeds = admittedSeeds.remove(entry.id());
        SandboxRecord record = live.record(entry.id()).orElse(null);
        if (record == null) {
            record = store.findSandbox(entry.id()).orElse(null);
        }
        if (record == null) {
            return;
        }
        SandboxRecord next = record.withContainers(
                List.copyOf(new TreeSet<>(entry.services().keySet())),
                refs(entry.services().values(), record.containers(), seeds));
        if (!store.updateSandbox(next)) {
            log.warn("sandbox record {} of agent {} was deleted while its set started", entry.id(), entry.agent());
        }
        live.putRecord(next);
    }

    @Override
    public void failed(Decision.Admitted admitted, AgentSandbox current) {
        admitted.release().run();
        admittedSeeds.remove(admitted.sandboxId());
        if (current == null && !admitted.sandboxId().isEmpty()) {
            store.forgetSandbox(admitted.sandboxId());
            live.forget(admitted.sandboxId());
        }
    }

    @Override
    public AgentSandbox served(SandboxRequest request, Map<String, String> labels, AgentSandbox entry) {
        SandboxRecord record = live.record(entry.id()).orElse(null);
        if (record == null || entry.expires() == null) {
            return entry;
        }
        Instant now = clock.instant();
        Duration ttl = lifetimes.resolve(request.project()).ttlDefault();
        Instant target = min(now.plus(ttl), record.maxExpires());
        Duration slack = ttl.compareTo(CAPPED_FROM) >= 0 ? RENEW_SLACK_CAP : ttl.dividedBy(RENEW_FRACTION);
        boolean renew = Duration.between(entry.expires(), target).compareTo(slack) > 0;
        boolean relabel = labels != null && !labels.equals(record.labels());
        List<ContainerRef> refs = refs(entry.services().values(), record.containers(), null);
        boolean refeature = !refs.equals(record.containers());
        if (!renew && !relabel && !refeature) {
            return entry;
        }
        SandboxRecord next = record.withExpires(renew ? target : record.expires())
                .withLabels(relabel ? labels : record.labels())
                .withContainers(record.services(), refs);
        if (!store.updateSandbox(next)) {
            return entry;
        }
        live.putRecord(next);
        return renew ? entry.withExpires(target) : entry;
    }

    @Override
    public void ended(AgentSandbox entry, String why) {
        live.forget(entry.id());
        if (!entry.id().isEmpty()) {
            store.markDeleted(entry.id(), clock.instant(), why, false);
        }
    }

    /** An operator changed a sandbox's record (extended it): the registry's copy follows, its held set's expiry too. */
    public void updated(SandboxRecord record) {
        live.updateRecord(record);
    }

    // --- named sandboxes ---------------------------------------------------------------------

    /**
     * Reserves a named sandbox: quotas (in the store), then capacity. On {@link Decision.Admitted} the record
     * is inserted; call {@link #adoptNamed} once its containers run, or {@link #abandonNamed} if they failed.
     *
     * @param ttl the requested TTL (null for the project's default), already checked against its max
     */
    public Decision reserveNamed(
            String owner,
            Project project,
            List<String> services,
            String name,
            Map<String, String> labels,
            Duration ttl) {
        Lifetimes.Resolved resolved = lifetimes.resolve(project);
        SandboxRecord draft =
                draft(owner, project, name, labels, services, ttl == null ? resolved.ttlDefault() : ttl, resolved);
        Reservation reservation = store.reserve(draft, quotaFor(project));
        if (!(reservation instanceof Reservation.Reserved reserved)) {
            return denial(reservation, owner, project.id());
        }
        admittedSeeds.put(draft.id(), seeds(project));
        return hold(services.size(), reserved.record(), draft.id(), draft.expires(), draft.id());
    }

    /** The named sandbox's containers run: recorded, and claimed for the janitor and the capacity, before they settle. */
    public SandboxRecord adoptNamed(Decision.Admitted admitted, Map<String, ServiceInstance> started) {
        started.values()
                .forEach(i -> ledger.move(i.containerId(), ContainerLedger.Reason.RECORDED, admitted.sandboxId()));
        admitted.release().run();
        SandboxRecord record = store.findSandbox(admitted.sandboxId())
                .orElseThrow(() -> new IllegalStateException(
                        "sandbox record " + admitted.sandboxId() + " vanished while it started"));
        SandboxRecord next = record.withContainers(
                record.services(), refs(started.values(), List.of(), admittedSeeds.remove(admitted.sandboxId())));
        store.updateSandbox(next);
        live.hold(next, started);
        return next;
    }

    public void abandonNamed(Decision.Admitted admitted) {
        live.forget(admitted.sandboxId());
        admittedSeeds.remove(admitted.sandboxId());
        admitted.release().run();
        store.forgetSandbox(admitted.sandboxId());
    }

    /** A sandbox's containers are gone; they no longer count. */
    public void forgetContainers(SandboxRecord record) {
        live.forget(record.id());
        record.containerIds().forEach(ledger::strike);
    }

    /** Live (or expired, not yet removed) named sandboxes of this instance, for metrics. */
    public int namedSandboxCount() {
        return (int) ledger.entries().stream()
                .filter(e -> e.reason() == ContainerLedger.Reason.RECORDED)
                .map(ContainerLedger.Entry::owner)
                .distinct()
                .count();
    }

    /** Named containers per service, for metrics: those the ledger has as {@code RECORDED}, by their records' services. */
    public Map<String, Integer> namedContainersByService() {
        Set<String> recorded = ledger.ids(ContainerLedger.Reason.RECORDED);
        Map<String, Integer> counts = new TreeMap<>();
        live.all().stream()
                .map(LiveSandboxes.Live::record)
                .filter(Objects::nonNull)
                .flatMap(r -> r.containers().stream())
                .filter(c -> recorded.contains(c.containerId()))
                .forEach(c -> counts.merge(c.service(), 1, Integer::sum));
        return counts;
    }

    // --- reads -------------------------------------------------------------------------------

    public Optional<SandboxRecord> find(String id) {
        return store.findSandbox(id);
    }

    public List<SandboxRecord> list(SandboxQuery query) {
        return store.sandboxes(query);
    }

    public Lifetimes lifetimes() {
        return lifetimes;
    }

    public int perOwner() {
        return perOwner;
    }

    public Capacity capacity() {
        return capacity;
    }

    public String instance() {
        return instance;
    }

    public SandboxStore store() {
        return store;
    }

    public Clock clock() {
        return clock;
    }

    public Quota quotaFor(Project project) {
        return new Quota(perOwner, project.maxLive() == null ? 0 : project.maxLive());
    }

    public static List<OwnedSandbox> owned(List<SandboxRecord> records) {
        return records.stream().map(OwnedSandbox::of).toList();
    }

    // --- internals ---------------------------------------------------------------------------

    /** A new sandbox's record, of the kind its name says (an agent's verb set is its sandbox named default). */
    private SandboxRecord draft(
            String owner,
            Project project,
            String name,
            Map<String, String> labels,
            List<String> services,
            Duration ttl,
            Lifetimes.Resolved lifetime) {
        Instant now = clock.instant();
        return new SandboxRecord(
                newId(),
                owner,
                project.id(),
                name,
                SandboxRecord.Kind.of(name),
                labels,
                services,
                List.of(),
                instance,
                now,
                now.plus(ttl),
                now.plus(lifetime.ttlMax()),
                null,
                null);
    }

    private Decision hold(int containers, SandboxRecord record, String id, Instant expires, String forgetOnRefusal) {
        Optional<Capacity.Hold> hold = capacity.tryReserve(containers);
        if (hold.isEmpty()) {
            admittedSeeds.remove(id);
            if (forgetOnRefusal != null) {
                store.forgetSandbox(forgetOnRefusal);
            }
            return new Decision.Denied(capacity.refusal(containers), true, false, "capacity", List.of());
        }
        if (record != null) {
            live.putRecord(record);
        }
        return new Decision.Admitted(id, expires, hold.get());
    }

    private Decision denial(Reservation reservation, String owner, String project) {
        if (reservation instanceof Reservation.OverQuota over) {
            String whose = over.scope().equals("owner") ? "owner '" + owner + "'" : "project '" + project + "'";
            String setting =
                    over.scope().equals("owner") ? "ROBOCO_SANDBOX_MAX_PER_OWNER" : "the project's sandbox_max_live";
            return new Decision.Denied(
                    whose + " has " + over.live() + " live sandbox(es), its quota of " + over.limit() + " (" + setting
                            + "); delete one of the owner's live sandboxes and retry: " + describe(over.ownerLive()),
                    false,
                    true,
                    over.scope() + "_quota",
                    owned(over.ownerLive()));
        }
        Reservation.NameTaken taken = (Reservation.NameTaken) reservation;
        return new Decision.Denied(
                "owner '" + owner + "' already has a sandbox named '"
                        + taken.existing().name() + "' (" + taken.existing().id()
                        + "); choose another name or delete that one first",
                false,
                true,
                "name_taken",
                owned(List.of(taken.existing())));
    }

    /** "sbx_1 (default, expires 2026-…), sbx_2 (before, task=T-7, expires …)". */
    static String describe(List<SandboxRecord> records) {
        if (records.isEmpty()) {
            return "(none)";
        }
        List<String> parts = new ArrayList<>();
        for (SandboxRecord r : records) {
            StringBuilder sb =
                    new StringBuilder(r.id()).append(" (").append(r.name().isEmpty() ? "unnamed" : r.name());
            r.labels().forEach((k, v) -> sb.append(", ").append(k).append('=').append(v));
            sb.append(", project ")
                    .append(r.project())
                    .append(", expires ")
                    .append(r.expires())
                    .append(')');
            parts.add(sb.toString());
        }
        return String.join("; ", parts);
    }

    /**
     * The records of {@code instances}: a container already recorded ({@code known}) keeps the seed it started with; a new
     * one is recorded with {@code seeds}' (service → how it reads; null: none known).
     */
    static List<ContainerRef> refs(
            Collection<ServiceInstance> instances, List<ContainerRef> known, Map<String, String> seeds) {
        Map<String, String> startedWith = new HashMap<>();
        known.forEach(c -> startedWith.put(c.containerId(), c.seed()));
        return instances.stream()
                .sorted(Comparator.comparing(ServiceInstance::service))
                .map(i -> new ContainerRef(
                        i.service(),
                        i.containerId(),
                        i.containerName(),
                        i.image(),
                        List.copyOf(new TreeSet<>(i.features())),
                        i.fromPool(),
                        i.major(),
                        startedWith.getOrDefault(
                                i.containerId(), seeds == null ? "" : seeds.getOrDefault(i.service(), ""))))
                .toList();
    }

    /** How each of the project's seeds reads, per service. */
    private static Map<String, String> seeds(Project project) {
        Map<String, String> out = new HashMap<>();
        project.seeds().forEach((service, seed) -> out.put(service, seed.describe()));
        return out;
    }

    static String newId() {
        byte[] b = new byte[10];
        RANDOM.nextBytes(b);
        return SandboxId.PREFIX + HexFormat.of().formatHex(b);
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
