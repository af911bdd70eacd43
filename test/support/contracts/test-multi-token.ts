// Compiled from TestMultiToken.sol beside this file with solc 0.8.28 (solc-js), optimizer on:
//   bunx solc@0.8.28 --optimize --bin --abi -o out test/support/contracts/TestMultiToken.sol
// Committed so tests need no compiler; recompile and paste when the source changes.

export const testMultiTokenAbi = [
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "operator",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256[]",
        "name": "ids",
        "type": "uint256[]"
      },
      {
        "indexed": false,
        "internalType": "uint256[]",
        "name": "values",
        "type": "uint256[]"
      }
    ],
    "name": "TransferBatch",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "operator",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "id",
        "type": "uint256"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "TransferSingle",
    "type": "event"
  },
  {
    "inputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      },
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "balanceOf",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "id",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "mint",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256[]",
        "name": "ids",
        "type": "uint256[]"
      },
      {
        "internalType": "uint256[]",
        "name": "values",
        "type": "uint256[]"
      }
    ],
    "name": "mintBatch",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256[]",
        "name": "ids",
        "type": "uint256[]"
      },
      {
        "internalType": "uint256[]",
        "name": "values",
        "type": "uint256[]"
      },
      {
        "internalType": "bytes",
        "name": "",
        "type": "bytes"
      }
    ],
    "name": "safeBatchTransferFrom",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "id",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "bytes",
        "name": "",
        "type": "bytes"
      }
    ],
    "name": "safeTransferFrom",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;

export const testMultiTokenBytecode: `0x${string}` = `0x${[
  "6080604052348015600e575f5ffd5b506108b48061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610055575f3560e01c8063",
  "156e29f6146100595780632eb2c2d61461006e5780633656eec214610081578063d81d0a15146100ba578063f242432a146100cd575b5f5ffd5b6100",
  "6c610067366004610537565b6100e0565b005b61006c61007c3660046105ed565b610161565b6100a861008f3660046106ac565b5f60208181529281",
  "526040808220909352908152205481565b60405190815260200160405180910390f35b61006c6100c83660046106d6565b610293565b61006c6100db",
  "366004610756565b6103b6565b5f828152602081815260408083206001600160a01b03871684529091528120805483929061010f9084906107dd565b",
  "909155505060408051838152602081018390526001600160a01b038516915f9133917fc3d58168c5ae7397731d063d5bbf3d657854427343f4c08324",
  "0f7aacaa2d0f62910160405180910390a4505050565b6001600160a01b03881633146101a65760405162461bcd60e51b815260206004820152600560",
  "248201526437bbb732b960d91b60448201526064015b60405180910390fd5b8483146101df5760405162461bcd60e51b815260206004820152600760",
  "24820152666c656e6774687360c81b604482015260640161019d565b5f5b8581101561022d576102258989898985818110610200576102006107f656",
  "5b90506020020135888886818110610219576102196107f6565b90506020020135610455565b6001016101e1565b50866001600160a01b0316886001",
  "600160a01b0316336001600160a01b03167f4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb89898989604051610281",
  "949392919061083a565b60405180910390a45050505050505050565b8281146102cc5760405162461bcd60e51b815260206004820152600760248201",
  "52666c656e6774687360c81b604482015260640161019d565b5f5b83811015610353578282828181106102e8576102e86107f6565b90506020020135",
  "5f5f878785818110610303576103036107f6565b9050602002013581526020019081526020015f205f886001600160a01b03166001600160a01b0316",
  "81526020019081526020015f205f82825461034691906107dd565b90915550506001016102ce565b50846001600160a01b03165f6001600160a01b03",
  "16336001600160a01b03167f4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb878787876040516103a7949392919061",
  "083a565b60405180910390a45050505050565b6001600160a01b03861633146103f65760405162461bcd60e51b815260206004820152600560248201",
  "526437bbb732b960d91b604482015260640161019d565b61040286868686610455565b60408051858152602081018590526001600160a01b03808816",
  "929089169133917fc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62910160405180910390a4505050505050565b5f82",
  "8152602081815260408083206001600160a01b03881684529091529020548111156104ae5760405162461bcd60e51b81526020600482015260076024",
  "8201526662616c616e636560c81b604482015260640161019d565b5f828152602081815260408083206001600160a01b038816845290915281208054",
  "8392906104dd90849061086b565b90915550505f828152602081815260408083206001600160a01b0387168452909152812080548392906105119084",
  "906107dd565b909155505050505050565b80356001600160a01b0381168114610532575f5ffd5b919050565b5f5f5f60608486031215610549575f5f",
  "fd5b6105528461051c565b95602085013595506040909401359392505050565b5f5f83601f840112610577575f5ffd5b50813567ffffffffffffffff",
  "81111561058e575f5ffd5b6020830191508360208260051b85010111156105a8575f5ffd5b9250929050565b5f5f83601f8401126105bf575f5ffd5b",
  "50813567ffffffffffffffff8111156105d6575f5ffd5b6020830191508360208285010111156105a8575f5ffd5b5f5f5f5f5f5f5f5f60a0898b0312",
  "15610604575f5ffd5b61060d8961051c565b975061061b60208a0161051c565b9650604089013567ffffffffffffffff811115610636575f5ffd5b61",
  "06428b828c01610567565b909750955050606089013567ffffffffffffffff811115610661575f5ffd5b61066d8b828c01610567565b909550935050",
  "608089013567ffffffffffffffff81111561068c575f5ffd5b6106988b828c016105af565b999c989b5096995094979396929594505050565b5f5f60",
  "4083850312156106bd575f5ffd5b823591506106cd6020840161051c565b90509250929050565b5f5f5f5f5f606086880312156106ea575f5ffd5b61",
  "06f38661051c565b9450602086013567ffffffffffffffff81111561070e575f5ffd5b61071a88828901610567565b909550935050604086013567ff",
  "ffffffffffffff811115610739575f5ffd5b61074588828901610567565b969995985093965092949392505050565b5f5f5f5f5f5f60a08789031215",
  "61076b575f5ffd5b6107748761051c565b95506107826020880161051c565b94506040870135935060608701359250608087013567ffffffffffffff",
  "ff8111156107ab575f5ffd5b6107b789828a016105af565b979a9699509497509295939492505050565b634e487b7160e01b5f52601160045260245f",
  "fd5b808201808211156107f0576107f06107c9565b92915050565b634e487b7160e01b5f52603260045260245ffd5b8183525f6001600160fb1b0383",
  "1115610821575f5ffd5b8260051b80836020870137939093016020019392505050565b604081525f61084d60408301868861080a565b828103602084",
  "015261086081858761080a565b979650505050505050565b818103818111156107f0576107f06107c956fea2646970667358221220d6410c59ecd361",
  "a42bf671c6de91cfeffdde90a645a20670b9bf51c3a6fddce664736f6c634300081c0033"
].join("")}`;
