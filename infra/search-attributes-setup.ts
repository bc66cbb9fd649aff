import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { InputError } from '../core/errors.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../protocol/search-attributes.js';

const { IndexedValueType } = proto.temporal.api.enums.v1; // CommonJS: no named ESM exports
const INDEXED_VALUE_TYPES = { KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, INT: IndexedValueType.INDEXED_VALUE_TYPE_INT } as const;

/**
 * Registers the typed search attributes on an existing cluster when they are
 * missing (the embedded dev server registers them at start).
 */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        missing.map((key) => [key.name, INDEXED_VALUE_TYPES[key.type as keyof typeof INDEXED_VALUE_TYPES]]),
      ),
    });
  } catch (error) {
    const names = missing.map((key) => key.name).join(', ');
    throw new InputError(`cannot register search attributes ${names} in namespace ${namespace}: ${(error as Error).message}`);
  }
}
