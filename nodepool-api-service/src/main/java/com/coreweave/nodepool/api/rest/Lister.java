package com.coreweave.nodepool.api.rest;

import com.coreweave.nodepool.api.domain.TableConvertor;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A resource whose objects can be listed, watched for and printed, as Kubernetes' {@code registry/rest} Lister and
 * TableConvertor: the objects the caller may see and how selectors and tables read them. {@link Listings} does the
 * rest, the same way for every resource.
 */
interface Lister<T> {

  /** Every object the caller may see, in the order a list shows them. */
  List<T> objects(ListOptions options);

  Map<String, String> labels(T item);

  /** The fields {@code ?fieldSelector=} may name, with this object's values. */
  Map<String, String> fields(T item);

  Set<String> selectableFields();

  /** The object's metadata, which a Table row carries by default. */
  Object metadata(T item);

  /** The JSON list ({@code kind: <Kind>List}) of these objects. */
  Object listOf(List<T> items, String resourceVersion);

  TableConvertor<T> table();
}
