// The PSD2 QCStatement (ETSI TS 119 495), defined with @peculiar/asn1-schema since no npm package ships
// it: inside the qcStatements extension (1.3.6.1.5.5.7.1.3), the statement 0.4.0.19495.2 holds
//   PSD2QcType ::= SEQUENCE { rolesOfPSP RolesOfPSP, nCAName UTF8String, nCAId UTF8String }
//   RolesOfPSP ::= SEQUENCE OF SEQUENCE { roleOfPspOid OBJECT IDENTIFIER, roleOfPspName UTF8String }
import { AsnArray, AsnProp, AsnPropTypes, AsnType, AsnTypeTypes } from '@peculiar/asn1-schema';

export const QC_STATEMENTS_OID = '1.3.6.1.5.5.7.1.3';
export const PSD2_QC_TYPE_OID = '0.4.0.19495.2';
export const ORGANIZATION_IDENTIFIER_OID = '2.5.4.97';

export class RoleOfPsp {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier })
  public roleOfPspOid = '';

  @AsnProp({ type: AsnPropTypes.Utf8String })
  public roleOfPspName = '';

  constructor(params: Partial<RoleOfPsp> = {}) {
    Object.assign(this, params);
  }
}

@AsnType({ type: AsnTypeTypes.Sequence, itemType: RoleOfPsp })
export class RolesOfPsp extends AsnArray<RoleOfPsp> {
  constructor(items?: RoleOfPsp[]) {
    super(items);
    Object.setPrototypeOf(this, RolesOfPsp.prototype);
  }
}

export class Psd2QcType {
  @AsnProp({ type: RolesOfPsp })
  public rolesOfPSP = new RolesOfPsp();

  @AsnProp({ type: AsnPropTypes.Utf8String })
  public nCAName = '';

  @AsnProp({ type: AsnPropTypes.Utf8String })
  public nCAId = '';

  constructor(params: Partial<Psd2QcType> = {}) {
    Object.assign(this, params);
  }
}

export class QcStatement {
  @AsnProp({ type: AsnPropTypes.ObjectIdentifier })
  public statementId = '';

  @AsnProp({ type: AsnPropTypes.Any, optional: true })
  public statementInfo?: ArrayBuffer;

  constructor(params: Partial<QcStatement> = {}) {
    Object.assign(this, params);
  }
}

@AsnType({ type: AsnTypeTypes.Sequence, itemType: QcStatement })
export class QcStatements extends AsnArray<QcStatement> {
  constructor(items?: QcStatement[]) {
    super(items);
    Object.setPrototypeOf(this, QcStatements.prototype);
  }
}
