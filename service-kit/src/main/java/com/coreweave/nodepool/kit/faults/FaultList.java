package com.coreweave.nodepool.kit.faults;

import java.util.List;
import java.util.SortedSet;

/** What {@code GET /admin/faults} answers: the points of this service and the faults armed on this instance. */
public record FaultList(SortedSet<String> points, List<ArmedFault> armed) {}
