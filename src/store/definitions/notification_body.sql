-- A status notification's body (issue 41, docs/notifications.md "What is delivered"); its id is the row's.
CREATE OR REPLACE FUNCTION notification_body(id text, resource_type text, resource_id text, status text,
                                             previous text, reason_code text, content text, href text)
  RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('notificationId', id, 'resourceType', resource_type,
    'resourceId', resource_id, 'status', status, 'previousStatus', previous, 'reasonCode', reason_code,
    'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'content', content,
    '_links', jsonb_build_object('status', jsonb_build_object('href', href))))
$$;
