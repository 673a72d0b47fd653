package io.roboco.sandbox.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table for people: columns padded to their widest cell. */
final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... header) {
        this.header = List.of(header);
    }

    Table row(Object... cells) {
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c == null ? "" : String.valueOf(c));
        }
        rows.add(r);
        return this;
    }

    void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < header.size(); i++) {
            widths[i] = header.get(i).length();
            for (List<String> r : rows) {
                widths[i] = Math.max(widths[i], r.get(i).length());
            }
        }
        line(out, header, widths);
        for (List<String> r : rows) {
            line(out, r, widths);
        }
        out.flush();
    }

    private static void line(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            String cell = cells.get(i);
            sb.append(i == cells.size() - 1 ? cell : String.format("%-" + widths[i] + "s  ", cell));
        }
        out.println(sb.toString().stripTrailing());
    }
}
