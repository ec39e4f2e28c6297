-- Which content a status change of a subscribed resource is (issue 41): PROCESS for every change,
-- LAST for a final status only (PROCESS wins when both are asked for); NULL when the subscription
-- (comma-separated constants) asks for neither.
CREATE OR REPLACE FUNCTION notification_content_of(preferred text, final boolean) RETURNS text
  LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN 'PROCESS' = ANY (string_to_array(preferred, ',')) THEN 'PROCESS'
              WHEN final AND 'LAST' = ANY (string_to_array(preferred, ',')) THEN 'LAST' END
$$;
