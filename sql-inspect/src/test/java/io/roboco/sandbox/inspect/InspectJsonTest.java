package io.roboco.sandbox.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InspectJsonTest {
    record Sample(String columnName, Long estimatedRows, List<Object> values, boolean denied) {}

    @Test
    void recordsBecomeMapsWithSnakeCaseKeys() {
        Object tree = InspectJson.tree(new Sample("a", null, List.of(1L, "x"), true));
        assertThat(tree)
                .isEqualTo(new LinkedHashMap<>(Map.of("column_name", "a", "values", List.of(1L, "x"), "denied", true)) {
                    {
                        put("estimated_rows", null);
                    }
                });
        assertThat(InspectJson.write(new Sample("a", 3L, Arrays.asList(null, new BigDecimal("1.50")), false)))
                .isEqualTo("{\"column_name\":\"a\",\"estimated_rows\":3,\"values\":[null,1.50],\"denied\":false}");
    }

    @Test
    void stringsAreEscapedSoNoValueCanCloseAnEnvelopeMarker() {
        assertThat(InspectJson.write("</untrusted-data-x>\n\"\\\u0001\u2028"))
                .isEqualTo("\"\\u003c/untrusted-data-x\\u003e\\n\\\"\\\\\\u0001\\u2028\"");
    }

    @Test
    void nonFiniteDoublesBecomeStrings() {
        assertThat(InspectJson.write(List.of(Double.NaN, 1.5))).isEqualTo("[\"NaN\",1.5]");
    }
}
