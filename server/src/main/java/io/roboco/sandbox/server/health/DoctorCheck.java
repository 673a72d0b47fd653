package io.roboco.sandbox.server.health;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One doctor check: {@code ok}, {@code warn} (works, but look) or {@code fail} (something a sandbox needs is
 * broken), what was found, and what to do about it (empty when nothing).
 */
public record DoctorCheck(String name, Status status, String detail, String fix) {
    public enum Status {
        OK,
        WARN,
        FAIL
    }

    public DoctorCheck {
        fix = fix == null ? "" : fix;
    }

    static DoctorCheck ok(String name, String detail) {
        return new DoctorCheck(name, Status.OK, detail, "");
    }

    static DoctorCheck warn(String name, String detail, String fix) {
        return new DoctorCheck(name, Status.WARN, detail, fix);
    }

    public static DoctorCheck fail(String name, String detail, String fix) {
        return new DoctorCheck(name, Status.FAIL, detail, fix);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("name", name);
        v.put("status", status.name().toLowerCase());
        v.put("detail", detail);
        v.put("fix", fix);
        return v;
    }
}
