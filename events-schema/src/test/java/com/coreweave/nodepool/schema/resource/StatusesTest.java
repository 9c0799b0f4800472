package com.coreweave.nodepool.schema.resource;

import static org.assertj.core.api.Assertions.assertThat;

import com.coreweave.nodepool.schema.Limits;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class StatusesTest {

    private static List<StatusCause> causes(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> Statuses.cause(Statuses.INVALID, "Invalid value", "items[" + i + "]"))
                .toList();
    }

    @Test
    void anInvalidStatusListsAHundredCausesAndCountsTheRest() {
        Status status = Statuses.invalid("Thing", "many", causes(5000));

        List<StatusCause> listed = status.getDetails().getCauses();
        assertThat(listed).hasSize(Limits.MAX_CAUSES + 1);
        assertThat(listed.get(Limits.MAX_CAUSES - 1).getField()).isEqualTo("items[99]");
        assertThat(listed.get(Limits.MAX_CAUSES))
                .extracting(StatusCause::getReason, StatusCause::getMessage, StatusCause::getField)
                .containsExactly(Statuses.OMITTED, "and 4900 more", "");
        assertThat(status.getMessage()).endsWith("items[99]: Invalid value, and 4900 more");
        assertThat(Statuses.standsFor(listed.get(Limits.MAX_CAUSES))).isEqualTo(4900);
    }

    @Test
    void aListAlreadyBoundedOrShortEnoughIsKept() {
        List<StatusCause> bounded = Statuses.bounded(causes(5000));

        assertThat(Statuses.bounded(bounded)).isSameAs(bounded);
        assertThat(Statuses.bounded(causes(Limits.MAX_CAUSES))).hasSize(Limits.MAX_CAUSES);
        assertThat(Statuses.bounded(causes(Limits.MAX_CAUSES + 1))
                        .get(Limits.MAX_CAUSES)
                        .getMessage())
                .isEqualTo("and 1 more");
    }
}
