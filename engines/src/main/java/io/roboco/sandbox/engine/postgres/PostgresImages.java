package io.roboco.sandbox.engine.postgres;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the Postgres engine knows about images by their reference: the major each runs and which allowlisted
 * extensions each carries. Known families: the official {@code postgres} images (contrib only: {@code pg_trgm},
 * {@code citext}, {@code uuid-ossp}), this project's local {@code roboco-sandbox/postgres} images (contrib and
 * PostGIS; pgvector from 17 on, the first major Debian packages it for), {@code pgvector/pgvector} (contrib and
 * vector) and {@code postgis/postgis} (contrib and PostGIS). Anything else: major unknown, whole allowlist.
 */
final class PostgresImages {
    /** The majors a project may pick; the production image of each is {@code postgres:<major>-alpine}. */
    static final List<String> MAJORS = List.of("15", "16", "17");

    static final Set<String> CONTRIB = Set.of("pg_trgm", "citext", "uuid-ossp");
    /** The first major whose local image carries pgvector (Debian trixie packages it for 17). */
    static final int LOCAL_VECTOR_SINCE = 17;

    /** {@code [registry/][library/]postgres:<major>[.<minor>][-variant]}. */
    private static final Pattern OFFICIAL =
            Pattern.compile("^(?:[^/]+\\.[^/]+/)?(?:library/)?postgres:(\\d+)(?:\\.\\d+)?(?:-[\\w.-]+)?$");

    private static final Pattern LOCAL = Pattern.compile("^roboco-sandbox/postgres:(\\d+)$");
    private static final Pattern PGVECTOR =
            Pattern.compile("^(?:[^/]+\\.[^/]+/)?pgvector/pgvector:(?:[\\w.]+-)?pg(\\d+)(?:[\\w.-]*)$");
    private static final Pattern POSTGIS = Pattern.compile("^(?:[^/]+\\.[^/]+/)?postgis/postgis:(\\d+)-[\\w.-]+$");

    private PostgresImages() {}

    /**
     * Whether the image runs initdb when its container starts (the official images and their kin). Ours copies a data
     * directory made at build time with SCRAM on every host line; an initdb at start would trust 127.0.0.1 unless told.
     */
    static boolean initialisesAtStart(String image) {
        return !LOCAL.matcher(image).matches();
    }

    static String productionImage(String major) {
        return "postgres:" + major + "-alpine";
    }

    static Optional<String> majorOf(String image) {
        for (Pattern p : List.of(LOCAL, OFFICIAL, PGVECTOR, POSTGIS)) {
            Matcher m = p.matcher(image);
            if (m.matches()) {
                return Optional.of(m.group(1));
            }
        }
        return Optional.empty();
    }

    /** The extensions {@code image} carries, intersected with {@code allowlist}; the whole allowlist when unknown. */
    static Set<String> features(String image, Set<String> allowlist) {
        Set<String> offered = new TreeSet<>(CONTRIB);
        Matcher local = LOCAL.matcher(image);
        if (local.matches()) {
            offered.add("postgis");
            if (Integer.parseInt(local.group(1)) >= LOCAL_VECTOR_SINCE) {
                offered.add("vector");
            }
        } else if (PGVECTOR.matcher(image).matches()) {
            offered.add("vector");
        } else if (POSTGIS.matcher(image).matches()) {
            offered.add("postgis");
        } else if (!OFFICIAL.matcher(image).matches()) {
            offered = new TreeSet<>(allowlist);
        }
        offered.retainAll(allowlist);
        return Set.copyOf(offered);
    }
}
